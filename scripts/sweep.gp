# SPDX-License-Identifier: GPL-2.0-or-later
# xrunlab sweep: the heatmap of the measured steps, client count (rows) x period (columns),
# colour = dropouts per minute (green: none in the step's runs), each cell labelled with its
# rate or, when clean, the runs that support it. Cells the search did not measure are blank.
# Called by `xrunlab sweep` as:
#   gnuplot -c sweep.gp DATA OUT.png|OUT.svg TITLE "PERIODS" "CLIENTS" MAXRATE
# DATA rows: clients_index period_index dropouts_per_min "label" (indexes from 0)
data = ARG1
out = ARG2
title = ARG3
periods = ARG4
clients = ARG5
maxrate = ARG6 + 0
np = words(periods)
nc = words(clients)
# PNG (pngcairo), or SVG when xrunlab says so: gnuplot -e 'xrunlab_terminal = "svg"'
# (--plot-format svg; engine/report/plot_format.hpp). Run by hand without it: PNG.
if (!exists("xrunlab_terminal")) { xrunlab_terminal = "png" }
width = np * 150 + 300
height = nc * 90 + 220
if (xrunlab_terminal eq "svg") {
  set terminal svg size width, height background rgb "white" font "sans,10" noenhanced
} else {
  set terminal pngcairo size width, height background rgb "white" font "sans,10" noenhanced
}
set output out
set title title
set xrange [-0.5:np - 0.5]
set yrange [-0.5:nc - 0.5]
set xtics () scale 0
set ytics () scale 0
do for [i = 1:np] { set xtics add (word(periods, i) i - 1) }
do for [i = 1:nc] { set ytics add (word(clients, i) i - 1) }
set xlabel "period (frames)"
set ylabel "clients"
set cblabel "dropouts per minute"
if (maxrate <= 0) { maxrate = 1 }
set cbrange [0:maxrate]
set palette defined (0 "#1a9850", 0.0001 "#fee08b", 1 "#d73027")
unset key
plot data using 2:1:(0.48):(0.48):3 with boxxyerror fs solid 1.0 noborder lc palette, \
     data using 2:1:4 with labels font "sans,9"
