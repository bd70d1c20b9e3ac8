# SPDX-License-Identifier: GPL-2.0-or-later
# Timeline of one xrunlab run (gnuplot >= 5.4, pngcairo or svg), from its timeseries.csv (format in
# engine/report/report_csv.hpp) and its xruns and audible glitches from run.json. xrunlab runs
# it without a shell, every value as its own argument (engine/report/plots.cpp):
#
#   gnuplot -d -c timeline.gp TIMESERIES XRUNS OUTPUT TITLE PERIOD_US CLIENTS COUNTS GLITCHES KEYS
#
#   TIMESERIES  timeseries.csv (absolute path: a gnuplot file name starting with '<' or '|'
#               would run a command)
#   XRUNS       the xruns as DRAW_XRUNS says: for markers one time per line (header "t_s",
#               seconds since the measurement started), for counts per second one stretch per
#               line (header "from_s,to_s,count")
#   OUTPUT      the PNG (or SVG) to write
#   TITLE       the title, shown verbatim (no enhanced text); may hold line breaks
#   PERIOD_US   the JACK period in usecs; 0 draws no period line
#   CLIENTS     the client indices that get their own lines, separated by spaces ("1 7 14")
#   COUNTS      six numbers: "CLIENTS_IN_RUN DELAY_POINTS SYSTEM_POINTS DRAW_XRUNS
#               DRAW_GLITCHES PEAK"; with no delay and no system points the plot says "no data"
#               (gnuplot cannot autoscale nothing). DRAW_*: 0 nothing, 1 a marker per event
#               (few events), 2 counts per second in a panel above the timeline (many events, or
#               only the first ones listed: engine/report/plot_data.hpp draw_per_second). PEAK:
#               the largest count per second drawn (the panel's scale)
#   GLITCHES    the audible glitches, as DRAW_GLITCHES says (the same two layouts as XRUNS)
#   KEYS        the legend entries of the xruns and of the glitches, separated by a tab; they
#               state the run's true counts (an empty one: no entry)
#
# Per-second values are drawn at the middle of their second. timeseries.csv has each second's
# maximum and mean delay, not its percentiles, and the legend says which is which.
# The arguments are only ever used as values (never as macros or in backquotes).

if (ARGC < 9) {
  print "usage: gnuplot -c timeline.gp TIMESERIES XRUNS OUTPUT TITLE PERIOD_US CLIENTS COUNTS GLITCHES KEYS"
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
draw_xruns = word(ARG7, 4) + 0
draw_glitches = word(ARG7, 5) + 0
peak = word(ARG7, 6) + 0
glitches_file = ARG8
tab = strstrt(ARG9, "\t")
xrun_key = tab > 0 ? ARG9[1:tab - 1] : ARG9
glitch_key = tab > 0 ? ARG9[tab + 1:] : ""
nclients = words(clients)
per_second = draw_xruns == 2 || draw_glitches == 2

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
what = "Callback delay and cycle time per second; DSP and CPU load; xruns".\
  (draw_glitches > 0 ? " and audible glitches" : "")
set title title_text."\n".what

is_client(name) = strcol("client") eq name
client_row(name, col) = is_client(name) ? column(col) : NaN
all_row(col) = is_client("all") ? column(col) : NaN
mid(col) = column(col) + 0.5

# One colour per drawn client (first, middle, last), the same as in latency.gp.
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

# Many events: their counts per second get a panel of their own above the timeline, on the
# same time axis (fixed left and right margins line the two up).
if (per_second) {
  unset title
  set multiplot title title_text."\n".what
  set lmargin at screen 0.075
  set rmargin at screen 0.915
  set tmargin at screen 0.71
}

client_word = nclients_run > nclients ? sprintf(" (%d of %d clients)", nclients, nclients_run) : ""
xrun_colour = "#e00000"
glitch_colour = "#3050ff"
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
     xruns_file using 1:(draw_xruns == 1 ? 112 : NaN) axes x1y2 with impulses lw 0.7 \
       lc rgb "#f08080" notitle, \
     xruns_file using 1:(draw_xruns == 1 ? 108 : NaN) axes x1y2 with points pt 11 ps 1.3 \
       lc rgb xrun_colour notitle, \
     glitches_file using 1:(draw_glitches == 1 ? 103 : NaN) axes x1y2 with points pt 9 ps 1.6 \
       lc rgb glitch_colour notitle, \
     NaN with points pt 11 ps 1.3 lc rgb xrun_colour title (draw_xruns == 2 ? "" : xrun_key), \
     NaN with points pt 9 ps 1.6 lc rgb glitch_colour \
       title (draw_glitches == 2 ? "" : glitch_key)

if (!per_second) { exit }

# The panel above: events per second, one bar per stretch (xruns filled, glitches outlined),
# its legend between it and the title (the entries are long: they state the true counts).
xmin = GPVAL_X_MIN
xmax = GPVAL_X_MAX
set key at screen 0.5, screen 0.868 center bottom vertical Left reverse samplen 3 spacing 1.1 \
  opaque box lc rgb "#a0a0a0"
unset label
unset logscale y
unset y2tics
unset y2label
unset xlabel
unset offsets
set tmargin at screen 0.855
set bmargin at screen 0.725
set xrange [xmin:xmax]
set format x ""
top = peak > 2 ? peak : 2  # whole steps: 0, 1, 2 at least
set yrange [0:top * 1.15]
# About two steps of a round size (1, 2 or 5 times a power of ten).
raw = top / 2.0
mag = 10 ** floor(log10(raw))
step = raw / mag <= 1 ? mag : raw / mag <= 2 ? 2 * mag : raw / mag <= 5 ? 5 * mag : 10 * mag
set ytics 0, step nomirror
set format y "%.0f"
set ylabel "per second"
plot xruns_file using (($1 + $2) / 2):(draw_xruns == 2 ? $3 : NaN):($2 - $1) with boxes \
       fs solid 0.6 noborder lc rgb xrun_colour notitle, \
     glitches_file using (($1 + $2) / 2):(draw_glitches == 2 ? $3 : NaN):($2 - $1) with boxes \
       fs empty border lw 1.5 lc rgb glitch_colour notitle, \
     NaN with boxes fs solid 0.6 noborder lc rgb xrun_colour \
       title (draw_xruns == 2 ? xrun_key : ""), \
     NaN with boxes fs empty border lw 1.5 lc rgb glitch_colour \
       title (draw_glitches == 2 ? glitch_key : "")
unset multiplot
