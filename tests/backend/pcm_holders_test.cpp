// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/backend/pcm_holders.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "engine/backend/alsa_cards.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::TempDir;

// ---------------------------------------------------------------------------------------------
// Who holds the PCM

TEST(PcmNode, Parses) {
  auto n = parse_pcm_node("/dev/snd/pcmC0D3c");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->card, 0);
  EXPECT_EQ(n->device, 3);
  EXPECT_EQ(n->stream, 'c');
  n = parse_pcm_node("/dev/snd/pcmC12D0p");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->card, 12);
  EXPECT_EQ(n->stream, 'p');
  EXPECT_FALSE(parse_pcm_node("/dev/snd/controlC0").has_value());
  EXPECT_FALSE(parse_pcm_node("/dev/snd/pcmC0D0").has_value());
  EXPECT_FALSE(parse_pcm_node("/dev/snd/pcmCxD0p").has_value());
  EXPECT_FALSE(parse_pcm_node("/dev/null").has_value());
}

TEST(FindPcmHolders, FakeProcRoot) {
  TempDir root;
  root.write("1234/comm", "pipewire\n");
  root.link("1234/fd/5", "/dev/snd/pcmC0D0p");
  root.link("1234/fd/6", "/dev/snd/controlC0");
  root.link("1234/fd/7", "/dev/snd/pcmC0D0c");
  root.write("1300/comm", "jackd\n");
  root.link("1300/fd/3", "/dev/snd/pcmC1D0c");
  root.write("1400/comm", "bash\n");
  root.link("1400/fd/0", "/dev/pts/0");

  const auto card0 = find_pcm_holders(0, 0, root.str());
  ASSERT_EQ(card0.size(), 2u);
  EXPECT_EQ(card0[0].pid, 1234);
  EXPECT_EQ(card0[0].comm, "pipewire");
  EXPECT_EQ(card0[0].node, "/dev/snd/pcmC0D0c");
  EXPECT_EQ(card0[1].node, "/dev/snd/pcmC0D0p");

  const auto any = find_pcm_holders(-1, -1, root.str());
  ASSERT_EQ(any.size(), 3u);
  EXPECT_EQ(any[2].pid, 1300);
  EXPECT_EQ(any[2].comm, "jackd");
  EXPECT_TRUE(find_pcm_holders(0, 1, root.str()).empty());
}

TEST(PcmMessages, BusyNamesHoldersOnce) {
  const std::vector<PcmHolder> holders = {{1234, "pipewire", "/dev/snd/pcmC0D0c"},
                                          {1234, "pipewire", "/dev/snd/pcmC0D0p"},
                                          {1300, "wireplumber", "/dev/snd/pcmC0D0p"}};
  EXPECT_EQ(pcm_busy_message("hw:0", holders),
            "ALSA device hw:0 is in use by another program (held by pipewire (pid 1234), "
            "wireplumber (pid 1300)); stop it or use --backend attach");
  EXPECT_EQ(pcm_busy_message("hw:0", {}),
            "ALSA device hw:0 is in use by another program (PipeWire, PulseAudio or another "
            "JACK?); stop it or use --backend attach");
}

TEST(PcmMessages, OpenErrors) {
  EXPECT_EQ(pcm_open_error_message("hw:0", -ENOENT, -ENOENT, "this machine has no sound card"),
            "ALSA device hw:0 cannot be opened: No such file or directory (this machine has no "
            "sound card); check the name with aplay -l / aplay -L, or use --backend vcard");
  const std::string both = pcm_open_error_message("hw:1,2", -ENODEV, -ENOENT, "");
  EXPECT_NE(both.find("hw:1,2"), std::string::npos);
  EXPECT_NE(both.find("No such device (playback), No such file or directory (capture)"),
            std::string::npos)
      << both;
}

TEST(PcmBusyReason, NoCardOnThisMachineNamesTheDevice) {
  if (has_sound_card()) GTEST_SKIP() << "this machine has a sound card";
  const std::string why = pcm_busy_reason("hw:0");
  EXPECT_FALSE(why.empty());
  EXPECT_NE(why.find("hw:0"), std::string::npos) << why;
  EXPECT_NE(why.find("--backend vcard"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

TEST(PcmBusyReason, UnknownPcmNameIsNamed) {
  const std::string why = pcm_busy_reason("xrunlab_no_such_pcm");
  EXPECT_NE(why.find("ALSA device xrunlab_no_such_pcm cannot be opened"), std::string::npos) << why;
}

}  // namespace
}  // namespace xrunlab
