# SPDX-License-Identifier: GPL-2.0-or-later
# xrunlab headroom: the DSP load (% of the period) the clients ran before their first dropout,
# against the period (log2 axis, a tic at each period), one line per client count: the median
# over the ramps with the distribution-free interval for it as thick bars, min..max as thin ones,
# and "≥" over a point whose cell had a ramp that ran to its end without an xrun (a lower
# bound). Each client count's points are moved a little sideways so their bars do not hide each
# other. Called by `xrunlab headroom` as:
#   gnuplot -c headroom.gp DATA OUT.png|OUT.svg TITLE "PERIODS" "CLIENTS"
# DATA (engine/campaign/headroom.hpp headroom_plot_data): one block per client count, in the
# order of CLIENTS, blocks separated by two blank lines (gnuplot's index); rows:
#   period median ci_low ci_high min max ramps censored
data = ARG1
out = ARG2
title = ARG3
periods = ARG4
clients = ARG5
np = words(periods)
nc = words(clients)
# PNG (pngcairo), or SVG when xrunlab says so: gnuplot -e 'xrunlab_terminal = "svg"'
# (--plot-format svg; engine/report/plot_format.hpp). Run by hand without it: PNG.
if (!exists("xrunlab_terminal")) { xrunlab_terminal = "png" }
if (xrunlab_terminal eq "svg") {
  set terminal svg size 1000,640 background rgb "white" font "sans,11" noenhanced
} else {
  set terminal pngcairo size 1000,640 background rgb "white" font "sans,11" noenhanced
}
set output out
set title title
set logscale x 2
pmin = word(periods, 1) + 0
pmax = word(periods, np) + 0
set xrange [pmin / 1.5:pmax * 1.5]
set xtics () nomirror
do for [i = 1:np] { set xtics add (word(periods, i) (word(periods, i) + 0)) }
set mxtics 1
set yrange [0:108]
set ytics 0, 10, 100 nomirror
set grid ytics
set xlabel "period (frames)"
set ylabel "DSP load before the first dropout (% of the period)"
set key top left opaque box
set bmargin 6
set label 1 "thick bars: the interval for the median (its coverage in the table); thin: min..max; ≥: at least (a ramp reached 100 % without an xrun)" \
    at screen 0.5, 0.02 center font "sans,9"
# Client count i's points sit at period x 2^shift(i): side by side, centred on the period.
shift(i) = 2 ** ((i - 1 - (nc - 1) / 2.0) * 0.08)
colour(i) = word("#0077bb #cc3311 #009988 #ee7733 #33bbee #ee3377 #bbbbbb", (i - 1) % 7 + 1)
plot for [i = 1:nc] data index (i - 1) using ($1 * shift(i)):2:5:6 \
       with yerrorbars lw 1 pt -1 lc rgb colour(i) notitle, \
     for [i = 1:nc] data index (i - 1) using ($1 * shift(i)):2:3:4 \
       with yerrorlines lw 3 pt 7 ps 1.2 lc rgb colour(i) \
       title sprintf("%s client%s", word(clients, i), word(clients, i) eq "1" ? "" : "s"), \
     for [i = 1:nc] data index (i - 1) using ($1 * shift(i)):2:(column(8) > 0 ? "≥" : "") \
       with labels offset -1.2, 0.8 tc rgb colour(i) notitle
