# Small helpers shared by the targets.
function(xrunlab_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion)
  if(XRUNLAB_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

function(xrunlab_sanitize target)
  if(XRUNLAB_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=${XRUNLAB_SANITIZE} -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=${XRUNLAB_SANITIZE})
  endif()
endfunction()
