# Plots of one xrunlab run (gnuplot >= 5.4, pngcairo), from its timeseries.csv and
# histogram.csv (formats documented in engine/report_csv.hpp). xrunlab runs it without a
# shell, every value as its own argument (engine/plots.cpp):
#
#   gnuplot -d -c plot_run.gp TIMESERIES HISTOGRAM OUTDIR TITLE PERIOD_US CLIENTS \
#           DELAY_POINTS HISTOGRAM_POINTS SYSTEM_POINTS
#
#   TIMESERIES, HISTOGRAM  the two CSV files (absolute paths: a gnuplot file name starting
#                          with '<' or '|' would run a command)
#   OUTDIR                 folder for delay.png, histogram.png and cpu.png
#   TITLE                  first title line of every plot, shown verbatim (no enhanced text)
#   PERIOD_US              the JACK period in usecs; 0 draws no period line
#   CLIENTS                the client indices, separated by spaces ("1 2 3")
#   *_POINTS               how many rows each plot has to draw; 0 gives a "no data" plot
#                          instead of a gnuplot error (gnuplot cannot autoscale nothing)
#
# The arguments reach the script as the string variables ARG1..ARG9 and are only ever used as
# values (never as macros or in backquotes), so paths and titles need no quoting.

if (ARGC < 9) {
  print "usage: gnuplot -c plot_run.gp TIMESERIES HISTOGRAM OUTDIR TITLE PERIOD_US CLIENTS DELAY_POINTS HISTOGRAM_POINTS SYSTEM_POINTS"
  exit status 2
}
timeseries = ARG1
histogram = ARG2
outdir = ARG3
title_text = ARG4
period = ARG5 + 0.0
clients = ARG6
delay_points = ARG7 + 0
histogram_points = ARG8 + 0
system_points = ARG9 + 0
nclients = words(clients)

set terminal pngcairo size 1280,720 noenhanced font "sans,10"
set datafile separator comma
set datafile columnheaders
# Rows of other clients evaluate to NaN; as "missing" they do not break the lines.
set datafile missing NaN
set grid
set key outside right top
set style data lines

is_client(name) = strcol("client") eq name
all_row(col) = is_client("all") ? column(col) : NaN

no_data(what) = sprintf("no %s in this run", what)

# ---- delay.png: maximum callback delay per second, per client and over all clients ----------
set output outdir."/delay.png"
set title title_text."\nCallback delay: maximum per second"
set xlabel "second of the measurement window"
set ylabel "delay (usecs)"
set yrange [0:*]
# Half a second of room left and right of the first and last second, not rounded to tics.
set offsets 0.5, 0.5, graph 0.05, 0
set autoscale xfix
if (delay_points == 0) {
  set label 1 no_data("callback delays") at graph 0.5, graph 0.5 center
  plot [0:1][0:1] NaN notitle
  unset label 1
} else {
  plot for [i=1:nclients] timeseries \
         using (column("second")):(is_client(word(clients, i)) ? column("delay_max_us") : NaN) \
         lw 1 lc i title (nclients <= 12 ? "client ".word(clients, i) \
                : i == 1 ? sprintf("%d clients, one line each", nclients) : ""), \
       timeseries using (column("second")):(all_row("delay_max_us")) \
         with linespoints lw 2 pt 7 ps 0.8 lc rgb "black" title "all clients", \
       (period > 0 ? period : NaN) dt 2 lw 2 lc rgb "red" \
         title (period > 0 ? sprintf("period %.1f usecs", period) : "")
}

# ---- histogram.png: delay histogram of all clients together ----------------------------------
set output outdir."/histogram.png"
set title title_text."\nCallback delay histogram, all clients (1 usec bins)"
set xlabel "delay (usecs)"
set ylabel "cycles"
set offsets 0, 0, 0, 0
set autoscale x
if (histogram_points == 0) {
  set label 1 no_data("delay histogram") at graph 0.5, graph 0.5 center
  plot [0:1][0:1] NaN notitle
  unset label 1
} else {
  stats histogram using (strcol("metric") eq "delay" ? column("value_us") : NaN) nooutput
  if (period > 0 && period <= STATS_max) {
    set arrow 1 from first period, graph 0 to first period, graph 1 nohead dt 2 lw 2 lc rgb "red"
    set label 2 sprintf(" period %.1f usecs", period) at first period, graph 0.95 left tc rgb "red"
  }
  set logscale y
  set yrange [0.8:*]
  pad = (STATS_max - (STATS_min < 0 ? STATS_min : 0)) * 0.02 + 1
  set xrange [(STATS_min < 0 ? STATS_min : 0) - pad:STATS_max + pad]
  plot histogram \
         using (strcol("metric") eq "delay" ? column("value_us") : NaN):(column("count")) \
         smooth frequency with impulses lw 2 lc rgb "#1f5fa8" title "cycles with this delay"
  unset logscale y
  unset arrow 1
  unset label 2
  set autoscale x
}

# ---- cpu.png: DSP and CPU load per second, xruns per second on y2 ----------------------------
set output outdir."/cpu.png"
set title title_text."\nLoad and xruns per second"
set xlabel "second of the measurement window"
set ylabel "load (%)"
set yrange [0:*]
set offsets 0.5, 0.5, graph 0.05, 0
set autoscale xfix
if (system_points == 0) {
  set label 1 no_data("system samples") at graph 0.5, graph 0.5 center
  plot [0:1][0:1] NaN notitle
  unset label 1
} else {
  set ytics nomirror
  set y2label "xruns"
  set y2range [0:*]
  set y2tics
  plot timeseries using (column("second")):(all_row("dsp_load_pct")) \
         with linespoints lw 2 pt 7 ps 0.9 lc rgb "black" title "JACK DSP load", \
       timeseries using (column("second")):(all_row("user_pct")) \
         with linespoints lw 1 pt 7 ps 0.8 lc rgb "#1f5fa8" title "CPU user", \
       timeseries using (column("second")):(all_row("system_pct")) \
         with linespoints lw 1 pt 7 ps 0.8 lc rgb "#d98c00" title "CPU system", \
       timeseries using (column("second")):(all_row("xruns")) axes x1y2 \
         with impulses lw 3 lc rgb "red" title "xruns (y2)"
}
unset output
