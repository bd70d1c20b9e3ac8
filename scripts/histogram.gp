# Callback delay histogram of one xrunlab run (gnuplot >= 5.4, pngcairo), from the delay rows
# of its histogram.csv (format in engine/report/report_csv.hpp), in the style of the OSADL / cyclictest
# latency plots: 1 usec bins as recorded, log count axis, the period and spare time marked.
# xrunlab runs it without a shell, every value as its own argument (engine/report/plots.cpp):
#
#   gnuplot -d -c histogram.gp DATA OUTPUT TITLE PERIOD_US SPARE_US CLIENTS \
#           CLIENTS_IN_RUN HISTOGRAM_POINTS "LOG_X RESOLUTION_US"
#
#   DATA              the histograms as "value_us count" lines, one block per histogram
#                     (blocks separated by two blank lines): block 0 all clients together,
#                     block i the i-th client of CLIENTS; a blank line inside a block where no
#                     delay was recorded over more than a tick (engine/report/plot_data.hpp). Absolute
#                     path: a gnuplot file name starting with '<' or '|' would run a command.
#   OUTPUT            the PNG to write
#   TITLE             the title, shown verbatim (no enhanced text); may hold line breaks
#   PERIOD_US         the JACK period in usecs; 0 draws no period line
#   SPARE_US          the spare time in usecs; 0 (or equal to the period) draws no extra line
#   CLIENTS           the client indices that get their own lines ("1 7 14")
#   CLIENTS_IN_RUN    how many clients the run had; above 1 the sum of all is drawn too
#   HISTOGRAM_POINTS  how many delay rows there are; 0 gives a "no data" plot
#   LOG_X             1: logarithmic delay axis (the worst delay is far beyond the body of the
#                     distribution; engine/report/plot_data.hpp says when), 0: linear
#   RESOLUTION_US     the step of the delay reference (20.8 usecs on the dummy backend), said
#                     in the axis label when it is coarser than the bins; 0 = unknown
#                     (LOG_X and RESOLUTION_US are one argument, two words: gnuplot -c takes 9)
#
# The arguments are only ever used as values (never as macros or in backquotes).

if (ARGC < 9) {
  print "usage: gnuplot -c histogram.gp DATA OUTPUT TITLE PERIOD_US SPARE_US CLIENTS CLIENTS_IN_RUN HISTOGRAM_POINTS \"LOG_X RESOLUTION_US\""
  exit status 2
}
data = ARG1
output = ARG2
title_text = ARG3
period = ARG4 + 0.0
spare = ARG5 + 0.0
clients = ARG6
nclients_run = ARG7 + 0
histogram_points = ARG8 + 0
log_x = word(ARG9, 1) + 0
resolution = words(ARG9) >= 2 ? word(ARG9, 2) + 0.0 : 0.0
nclients = words(clients)

set encoding utf8
set terminal pngcairo size 1280,800 noenhanced font "sans,11" background rgb "white"
set output output
set datafile missing NaN
set grid xtics ytics mytics lc rgb "#d0d0d0"
set border lc rgb "#404040"
set key outside right top vertical Left reverse samplen 3 spacing 1.2 box lc rgb "#a0a0a0"
set title title_text."\nCallback delay histogram (1 µs bins)"

client_colour(i) = i == 1 ? "#1f64b4" : i == 2 ? "#2ca02c" : "#9a3fc6"
# On a log axis a delay below 1 usec (the 0 bin) is drawn at 1 usec.
x_of(v) = log_x && v < 1 ? 1 : v

step_note = resolution > 1.5 ? sprintf("; measured in steps of %.1f µs", resolution) : ""
set xlabel (log_x ? "callback delay (µs, log scale; delays under 1 µs drawn at 1 µs".step_note.")" \
                  : "callback delay (µs".step_note.")")
set ylabel "cycles (log scale)"

if (histogram_points == 0) {
  unset key
  unset logscale y
  set label 1 "no delay histogram in this run" at graph 0.5, graph 0.5 center
  plot [0:1][0:1] NaN notitle
  exit
}

stats data index 0 using 1 nooutput
lo = log_x ? 1 : (STATS_min < 0 ? STATS_min : 0)
hi = STATS_max
worst = STATS_max
# The worst delay is often a single cycle: a short bar at the bottom edge. Name it.
set label 3 sprintf("worst %.0f µs ", worst) at first (log_x && worst < 1 ? 1 : worst), graph 0.06 \
  right tc rgb "#404040" front boxed
set style textbox opaque noborder
pad = log_x ? 0 : (hi - lo) * 0.02 + 1
# The period and the spare time are marked when they are inside the data or near it (up to 1.5x
# the worst delay); further out they would squeeze the data, and the key says where they are.
show_limit(v) = v > 0 && v <= 1.5 * (hi > 1 ? hi : 1)
if (show_limit(period) && period > hi) { hi = period }
if (show_limit(spare) && spare > hi) { hi = spare }
if (log_x) {
  set logscale x 10
  set xrange [1:hi * 1.3]
} else {
  set xrange [lo - pad:hi + pad]
}
set logscale y 10
set yrange [0.7:*]
set format y "%.0f"

limit_title(what, v) = show_limit(v) ? sprintf("%s %.1f µs", what, v) \
                                     : sprintf("%s %.1f µs (beyond the worst delay, not drawn)", what, v)
same = spare > 0 && abs(spare - period) < 0.5
if (period > 0 && show_limit(period)) {
  set arrow 1 from first period, graph 0 to first period, graph 1 nohead dt (10, 5) lw 2 \
    lc rgb "#e07000"
}
if (spare > 0 && !same && show_limit(spare)) {
  set arrow 2 from first spare, graph 0 to first spare, graph 1 nohead dt (4, 4) lw 2 \
    lc rgb "#c00000"
}

plot data index 0 using (x_of($1)):2 with impulses \
       lw 3 lc rgb "#b8b8b8" \
       title (nclients_run > 1 ? sprintf("all %d clients together", nclients_run) \
                               : "the client"), \
     for [i=1:nclients] data index i using (x_of($1)):2 \
       with linespoints lw 1.5 pt 7 ps 0.5 lc rgb client_colour(i) \
       title sprintf("client %s", word(clients, i)), \
     NaN dt (10, 5) lw 2 lc rgb "#e07000" \
       title (period > 0 ? limit_title(same ? "period = spare time" : "period", period) : ""), \
     NaN dt (4, 4) lw 2 lc rgb "#c00000" \
       title (spare > 0 && !same ? limit_title("spare time", spare) : "")
