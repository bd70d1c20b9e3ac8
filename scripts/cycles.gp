# SPDX-License-Identifier: GPL-2.0-or-later
# Waterfall of the worst cycles of one xrunlab run (gnuplot >= 5.4, pngcairo or svg): where each
# cycle's period went, hop by hop, against its deadline. One row per cycle (the worst by slack
# at the top, then cycles that missed: past the deadline, or a client did not run), from the
# cycle table of run.json (engine/result/cycle_hops.hpp). xrunlab runs it without a shell,
# every value as its own argument (engine/report/plots.cpp):
#
#   gnuplot -d -c cycles.gp DATA OUTPUT TITLE PERIOD_US ROWS
#
#   DATA       "row x0_us x1_us kind label" lines, one per hop (engine/report/cycle_plot.hpp):
#              kind 1 interrupt -> jackd wake-up, 2 a client's wake-up after its upstream,
#              3 a client's DSP, 4 a client that did not run (a marker at the row's end);
#              label (quoted) names the row on the y axis. Absolute path.
#   OUTPUT     the PNG (or SVG) to write
#   TITLE      the title, shown verbatim (no enhanced text); may hold line breaks
#   PERIOD_US  the deadline (the next interrupt) in usecs
#   ROWS       how many rows there are; 0 gives a "no data" plot
#
# The arguments are only ever used as values (never as macros or in backquotes).

if (ARGC < 5) {
  print "usage: gnuplot -c cycles.gp DATA OUTPUT TITLE PERIOD_US ROWS"
  exit status 2
}
data = ARG1
period = real(ARG4)
rows = int(ARG5)

# PNG (pngcairo), or SVG when xrunlab says so: gnuplot -e 'xrunlab_terminal = "svg"'
# (--plot-format svg; engine/report/plot_format.hpp). Run by hand without it: PNG.
if (!exists("xrunlab_terminal")) { xrunlab_terminal = "png" }
if (xrunlab_terminal eq "svg") {
  set terminal svg size 1280,800 noenhanced font ",10" background rgb "white"
} else {
  set terminal pngcairo size 1280,800 noenhanced font ",10" background rgb "white"
}
set output ARG2
set title ARG3
set key outside right top box
set grid xtics
set xlabel "usecs after the cycle's interrupt"
set ylabel "cycle (boundary, time in the run, slack)"

if (rows == 0) {
  set label 1 "no cycle table in this run" at graph 0.5, graph 0.5 center
  set xrange [0:1]
  set yrange [0:1]
  unset ytics
  plot NaN notitle
  exit
}

set yrange [rows - 0.5 : -0.5]
set arrow 1 from period, graph 0 to period, graph 1 nohead lw 2 lc rgb "#d62728" dt 2
array names[4] = ["interrupt -> jackd wake-up", "client wake-up after its upstream", \
                  "client DSP", "client did not run"]
array colors[4] = ["#7f7f7f", "#ff7f0e", "#1f77b4", "#d62728"]
plot data using 2:1:ytic(5) with points ps 0 notitle, \
     for [k=1:3] data using 2:(column(4) == k ? column(1) : NaN):($3 - $2):(0) \
         with vectors nohead lw 12 lc rgb colors[k] title names[k], \
     data using 2:(column(4) == 4 ? column(1) : NaN) with points pt 2 ps 2 lw 2 \
         lc rgb colors[4] title names[4], \
     NaN with lines lw 2 dt 2 lc rgb "#d62728" title "deadline (the next interrupt)"
