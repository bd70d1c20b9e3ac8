# Timeline of one xrunlab run (gnuplot >= 5.4, pngcairo), from its timeseries.csv (format in
# engine/report/report_csv.hpp) and the xrun times taken from run.json. xrunlab runs it without a
# shell, every value as its own argument (engine/report/plots.cpp):
#
#   gnuplot -d -c timeline.gp TIMESERIES XRUNS OUTPUT TITLE PERIOD_US CLIENTS COUNTS
#
#   TIMESERIES  timeseries.csv (absolute path: a gnuplot file name starting with '<' or '|'
#               would run a command)
#   XRUNS       a file with one xrun time per line, seconds since the measurement started
#   OUTPUT      the PNG to write
#   TITLE       the title, shown verbatim (no enhanced text); may hold line breaks
#   PERIOD_US   the JACK period in usecs; 0 draws no period line
#   CLIENTS     the client indices that get their own lines, separated by spaces ("1 7 14")
#   COUNTS      four numbers: "CLIENTS_IN_RUN DELAY_POINTS SYSTEM_POINTS XRUNS"; with no delay
#               and no system points the plot says "no data" (gnuplot cannot autoscale nothing);
#               XRUNS -1: the xrun times are unknown (no run.json), 0: the run had none
#   GLITCHES    (optional) a file with one audible-glitch time per line, and after it their
#               count (-1: the run had no audio check); glitches are drawn apart from xruns
#
# Per-second values are drawn at the middle of their second. timeseries.csv has each second's
# maximum and mean delay, not its percentiles, and the legend says which is which.
# The arguments are only ever used as values (never as macros or in backquotes).

if (ARGC < 7) {
  print "usage: gnuplot -c timeline.gp TIMESERIES XRUNS OUTPUT TITLE PERIOD_US CLIENTS COUNTS"
  exit status 2
}
timeseries = ARG1
xruns_file = ARG2
output = ARG3
title_text = ARG4
period = ARG5 + 0.0
clients = ARG6
nclients_run = word(ARG7, 1) + 0
delay_points = word(ARG7, 2) + 0
system_points = word(ARG7, 3) + 0
nxruns = word(ARG7, 4) + 0
glitches_file = ARGC >= 9 ? ARG8 : xruns_file  # without it nothing is drawn (y is NaN)
nglitches = ARGC >= 9 ? ARG9 + 0 : -1
nclients = words(clients)

set encoding utf8
set terminal pngcairo size 1280,800 noenhanced font "sans,11" background rgb "white"
set output output
set datafile separator comma
set datafile columnheaders
# Rows of other clients evaluate to NaN; as "missing" they do not break the lines.
set datafile missing NaN
set grid xtics ytics lc rgb "#d0d0d0"
set border lc rgb "#404040"
set bmargin 10
set xlabel offset 0, 0.3
set key outside below center horizontal Left reverse maxrows 4 width 2 samplen 3 spacing 1.1 \
  box lc rgb "#a0a0a0"
set style data lines
set title title_text."\nCallback delay and cycle time per second; DSP and CPU load; xruns"

is_client(name) = strcol("client") eq name
client_row(name, col) = is_client(name) ? column(col) : NaN
all_row(col) = is_client("all") ? column(col) : NaN
mid(col) = column(col) + 0.5

# One colour per drawn client (first, middle, last), the same as in histogram.gp.
client_colour(i) = i == 1 ? "#1f64b4" : i == 2 ? "#2ca02c" : "#9a3fc6"

set xlabel "time since the measurement started (s)"
set ylabel "callback delay, cycle time (µs)"
set y2label "load (%)"
set ytics nomirror
set y2tics 0, 20, 100 nomirror
set y2range [0:112]
set offsets 0.5, 0.5, 0, 0
set autoscale xfix

if (delay_points == 0 && system_points == 0) {
  unset key
  unset y2tics
  unset y2label
  set label 1 "no per-second data in this run" at graph 0.5, graph 0.5 center
  plot [0:1][0:1] NaN notitle
  exit
}

# A log delay axis when single bad seconds reach beyond 3 periods: on a linear axis they would
# squeeze every other second into the bottom of the plot.
biggest(a, b) = a > b || b != b ? a : b
stats timeseries using (biggest(all_row("cycle_max_us"), all_row("delay_max_us"))) nooutput
worst = STATS_records > 0 ? STATS_max : 0
top = worst > period ? worst : period
if (period > 0 && worst > 3 * period) {
  set logscale y 10
  set yrange [10:top * 1.5]
  set ylabel "callback delay, cycle time (µs, log scale; below 10 µs drawn at 10 µs)"
  floor10(v) = v < 10 ? 10 : v
} else {
  # Room above the data: 100 % load (right axis) and the period should not share a line.
  if (top > 0) { set yrange [0:top * 1.25] } else { set yrange [0:*] }
  floor10(v) = v
}

if (system_points == 0) {
  set y2label "load (%): no system samples in this run"
}

client_word = nclients_run > nclients ? sprintf(" (%d of %d clients)", nclients, nclients_run) : ""
plot for [i=1:nclients] timeseries \
       using (mid("second")):(floor10(client_row(word(clients, i), "delay_max_us"))) \
       lw 2 lc rgb client_colour(i) \
       title sprintf("client %s delay, max", word(clients, i)).(i == 1 ? client_word : ""), \
     for [i=1:nclients] timeseries \
       using (mid("second")):(floor10(client_row(word(clients, i), "delay_mean_us"))) \
       lw 1.5 dt (6, 4) lc rgb client_colour(i) \
       title sprintf("client %s delay, mean", word(clients, i)), \
     timeseries using (mid("second")):(floor10(all_row("cycle_max_us"))) \
       with linespoints lw 2 pt 7 ps 0.6 lc rgb "black" title "cycle time, max", \
     (period > 0 ? period : NaN) dt (10, 5) lw 2 lc rgb "#e07000" \
       title (period > 0 ? sprintf("period %.1f µs", period) : ""), \
     timeseries using (mid("second")):(all_row("dsp_load_pct")) axes x1y2 \
       with linespoints lw 1.5 pt 4 ps 0.7 lc rgb "#00a0a0" title "JACK DSP load (%, right axis)", \
     timeseries using (mid("second")):(all_row("user_pct") + all_row("system_pct")) axes x1y2 \
       with linespoints lw 1.5 pt 6 ps 0.7 lc rgb "#b07830" \
       title "CPU user+system (%, right axis)", \
     xruns_file using 1:(112) axes x1y2 with impulses lw 0.7 lc rgb "#f08080" notitle, \
     xruns_file using 1:(108) axes x1y2 with points pt 11 ps 1.3 lc rgb "#e00000" \
       title (nxruns > 0 ? sprintf("xrun (%d in the run)", nxruns) : ""), \
     NaN with points pt 11 ps 1.3 lc rgb "#e00000" \
       title (nxruns == 0 ? "no xruns in the run" : ""), \
     glitches_file using 1:(nglitches > 0 ? 100 : NaN) axes x1y2 with points pt 9 ps 1.6 \
       lc rgb "#3050ff" title (nglitches > 0 ? sprintf("audible glitch (%d in the run)", nglitches) : ""), \
     NaN with points pt 9 ps 1.6 lc rgb "#3050ff" \
       title (nglitches == 0 ? "no audible glitches" : "")
