# SPDX-License-Identifier: GPL-2.0-or-later
# Latency plot of one xrunlab run (gnuplot >= 5.4, pngcairo or svg) in the form of the OSADL /
# cyclictest latency plots: log count against latency in usecs, one line per series, 1 usec
# bins as recorded, the period (the deadline) marked. The series (engine/report/plot_data.hpp
# latency_plot) are the hops of the cycle table (interrupt -> jackd wake-up, the clients'
# wake-ups, their DSP times, the cycle, the slack before the deadline), or for runs without it
# the clients' callback delays against the interrupt. xrunlab runs it without a shell, every
# value as its own argument (engine/report/plots.cpp):
#
#   gnuplot -d -c latency.gp DATA OUTPUT TITLE PERIOD_US "POINTS LOG_X RESOLUTION_US" STYLES \
#           KEYS XLABEL
#
#   DATA           the series as "value_us count" lines, one block per series (blocks separated
#                  by two blank lines), in the order of STYLES; a blank line inside a block where
#                  no value was recorded over more than a tick (engine/report/plot_data.hpp).
#                  Absolute path: a gnuplot file name starting with '<' or '|' would run a
#                  command.
#   OUTPUT         the PNG (or SVG) to write
#   TITLE          the title, shown verbatim (no enhanced text); may hold line breaks
#   PERIOD_US      the JACK period in usecs; 0 draws no period line
#   POINTS         how many (value, count) lines DATA has; 0 gives a "no data" plot
#   LOG_X          1: logarithmic latency axis (the worst value is far beyond the period and
#                  the body of the values; engine/report/plot_data.hpp says when), 0: linear
#   RESOLUTION_US  the step of the time reference (20.8 usecs on the dummy backend), said in the
#                  axis label when it is coarser than the bins; 0 = unknown
#                  (POINTS, LOG_X and RESOLUTION_US are one argument: gnuplot -c takes 9)
#   STYLES         one word per series, its colour and dash: jackd_wakeup, client_wakeup,
#                  client_wakeup_worst, dsp, cycle, slack; delay_all, delay_1, delay_2, delay_3
#   KEYS           the legend entry of each series, separated by tabs (count, maximum, what is
#                  not drawn)
#   XLABEL         what the latency axis shows ("latency"); the unit and scale are added
#
# The arguments are only ever used as values (never as macros or in backquotes).

if (ARGC < 7) {
  print "usage: gnuplot -c latency.gp DATA OUTPUT TITLE PERIOD_US \"POINTS LOG_X RESOLUTION_US\" STYLES KEYS XLABEL"
  exit status 2
}
data = ARG1
output = ARG2
title_text = ARG3
period = ARG4 + 0.0
points = word(ARG5, 1) + 0
log_x = word(ARG5, 2) + 0
resolution = words(ARG5) >= 3 ? word(ARG5, 3) + 0.0 : 0.0
styles = ARG6
keys = ARG7
xlabel_text = ARGC >= 8 ? ARG8 : "latency"
nseries = words(styles)

# The i-th of the tab-separated keys ("" when there are fewer).
tab = "\t"
field(s, i) = i <= 1 ? (strstrt(s, tab) > 0 ? s[1:strstrt(s, tab) - 1] : s) \
                     : (strstrt(s, tab) > 0 ? field(s[strstrt(s, tab) + 1:], i - 1) : "")

style_colour(w) = w eq "jackd_wakeup" ? "#8c564b" : \
                  w eq "client_wakeup" ? "#1f64b4" : \
                  w eq "client_wakeup_worst" ? "#6fa8e0" : \
                  w eq "dsp" ? "#2ca02c" : \
                  w eq "cycle" ? "black" : \
                  w eq "slack" ? "#9a3fc6" : \
                  w eq "delay_all" ? "#909090" : \
                  w eq "delay_1" ? "#1f64b4" : \
                  w eq "delay_2" ? "#2ca02c" : \
                  w eq "delay_3" ? "#9a3fc6" : "#404040"
style_width(w) = w eq "cycle" || w eq "delay_all" ? 2.5 : 1.5
style_dash(w) = w eq "client_wakeup_worst" ? 2 : 1

set encoding utf8
# PNG (pngcairo), or SVG when xrunlab says so: gnuplot -e 'xrunlab_terminal = "svg"'
# (--plot-format svg; engine/report/plot_format.hpp). Run by hand without it: PNG.
if (!exists("xrunlab_terminal")) { xrunlab_terminal = "png" }
if (xrunlab_terminal eq "svg") {
  set terminal svg size 1280,800 noenhanced font "sans,11" background rgb "white"
} else {
  set terminal pngcairo size 1280,800 noenhanced font "sans,11" background rgb "white"
}
set output output
set datafile missing NaN
set grid xtics ytics mytics lc rgb "#d0d0d0"
set border lc rgb "#404040"
set key outside below center vertical Left reverse samplen 3 spacing 1.1 box lc rgb "#a0a0a0"
# Room under the axis label for the key: one line per series and the period.
set bmargin (nseries + 1) * 1.1 + 4
set title title_text

# On a log axis a value below 1 usec (the 0 bin) is drawn at 1 usec.
x_of(v) = log_x && v < 1 ? 1 : v

step_note = resolution > 1.5 ? sprintf("; measured in steps of %.1f µs", resolution) : ""
log_note = log_x ? ", log scale; under 1 µs drawn at 1 µs" : ""
set xlabel xlabel_text." (µs".log_note.step_note.")"
set ylabel "count (log scale)"

if (points == 0) {
  unset key
  set label 1 "no latency data in this run" at graph 0.5, graph 0.5 center
  plot [0:1][0:1] NaN notitle
  exit
}

# The range of every series together (blocks of "NaN NaN" are empty series).
stats data using 1 nooutput
lo = log_x ? 1 : (STATS_min < 0 ? STATS_min : 0)
hi = STATS_max
# The period is marked when it is inside the data or near it (up to 1.5x the largest value);
# further out it would squeeze the data, and the key says where it is.
show_period = period > 0 && period <= 1.5 * (hi > 1 ? hi : 1)
if (show_period && period > hi) { hi = period }
pad = log_x ? 0 : (hi - lo) * 0.02 + 1
if (log_x) {
  set logscale x 10
  set xrange [1:hi * 1.3]
} else {
  set xrange [lo - pad:hi + pad]
}
set logscale y 10
set yrange [0.7:*]
set format y "%.0f"

if (show_period) {
  set arrow 1 from first period, graph 0 to first period, graph 1 nohead dt (10, 5) lw 2 \
    lc rgb "#e07000"
}

plot for [i=1:nseries] data index (i - 1) using (x_of($1)):2 \
       with linespoints lw style_width(word(styles, i)) dt style_dash(word(styles, i)) \
       pt 7 ps 0.35 lc rgb style_colour(word(styles, i)) title field(keys, i), \
     NaN dt (10, 5) lw 2 lc rgb "#e07000" \
       title (period > 0 ? sprintf("period (the deadline) %.1f µs", period).\
                           (show_period ? "" : ": beyond the largest value, not drawn") : "")
