# SPDX-License-Identifier: GPL-2.0-or-later
# xrunlab history: a setting's figures against the date of each run, one panel per figure and
# one colour per kernel (kernels in the order of their first run), so a kernel that moved a
# figure shows as a step between colours. Called by `xrunlab history` as:
#   gnuplot -c history.gp DATA OUT.png TITLE "KERNEL|KERNEL|..." "LABEL|LABEL|..."
# DATA (engine/history/history_trend.hpp history_plot_data): one block per kernel, in the
# order of KERNELS, blocks separated by two blank lines (gnuplot's index); rows:
#   <UTC seconds> <figure 1> ... <figure N>      (NaN: the run does not have that figure)
data = ARG1
out = ARG2
title = ARG3
kernels = ARG4
labels = ARG5
# The '|'-separated names into arrays (a name may hold spaces, never '|').
nk = 1
s = kernels
while (strstrt(s, "|") > 0) { nk = nk + 1; s = s[strstrt(s, "|") + 1:] }
nf = 1
s = labels
while (strstrt(s, "|") > 0) { nf = nf + 1; s = s[strstrt(s, "|") + 1:] }
array K[nk]
array L[nf]
s = kernels
do for [i = 1:nk] { p = strstrt(s, "|"); if (p > 0) { K[i] = s[1:p - 1]; s = s[p + 1:] } else { K[i] = s } }
s = labels
do for [i = 1:nf] { p = strstrt(s, "|"); if (p > 0) { L[i] = s[1:p - 1]; s = s[p + 1:] } else { L[i] = s } }
if (!exists("xrunlab_terminal")) { xrunlab_terminal = "png" }
height = 80 + 190 * nf
if (xrunlab_terminal eq "svg") {
  set terminal svg size 1000,height background rgb "white" font "sans,10" noenhanced
} else {
  set terminal pngcairo size 1000,height background rgb "white" font "sans,10" noenhanced
}
set output out
set xdata time
set timefmt "%s"
set format x "%m-%d\n%H:%M"
set grid ytics
set key outside right top
# The same plot area in every panel, whether or not it carries the key.
set lmargin 12
set rmargin at screen 0.80
colour(i) = word("#0077bb #cc3311 #009988 #ee7733 #33bbee #ee3377 #bbbbbb #000000", (i - 1) % 8 + 1)
set multiplot layout nf, 1 title title
do for [f = 1:nf] {
  set ylabel L[f]
  if (f == nf) { set xlabel "run started (UTC)" } else { unset xlabel }
  if (f == 1) { set key } else { unset key }
  plot for [k = 1:nk] data index (k - 1) using 1:(column(f + 1)) \
       with linespoints pt 7 ps 0.8 lc rgb colour(k) title K[k]
}
unset multiplot
