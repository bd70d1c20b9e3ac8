# SPDX-License-Identifier: GPL-2.0-or-later
# xrunlab campaign: one panel per figure (up to three), one column per case: every finished
# run as a point (spread sideways so runs with equal values stay visible), and the case's box
# plot: the interquartile range as a box, min..max as whiskers, the median as a bar. Called by
# `xrunlab campaign` as:
#   gnuplot -c campaign.gp RUNS.csv MEDIANS.csv OUT TITLE NCASES NFIG TITLE1 [TITLE2 [TITLE3]]
# RUNS.csv columns: case,label,x,f1[,f2[,f3]] (one row per run; empty: the run lacks it)
# MEDIANS.csv columns: case,label, then per figure median,q1,q3,min,max (one row per case;
# empty: no run has the figure)
runs = ARG1
medians = ARG2
out = ARG3
title = ARG4
ncases = ARG5 + 0
nfig = ARG6 + 0
# PNG (pngcairo), or SVG when xrunlab says so: gnuplot -e 'xrunlab_terminal = "svg"'
# (--plot-format svg; engine/report/plot_format.hpp). Run by hand without it: PNG.
if (!exists("xrunlab_terminal")) { xrunlab_terminal = "png" }
if (xrunlab_terminal eq "svg") {
  set terminal svg size 1400,800 background rgb "white" font "sans,10" noenhanced
} else {
  set terminal pngcairo size 1400,800 background rgb "white" font "sans,10" noenhanced
}
set output out
set datafile separator ","
set datafile missing ""
set xrange [0.4:ncases + 0.6]
set boxwidth 0.5
set grid ytics
set xtics rotate by -35 scale 0 nomirror
set bmargin 12
set multiplot layout 1,nfig title title
do for [f = 1:nfig] {
  t = (f == 1 ? ARG7 : f == 2 ? ARG8 : ARG9)
  set title t
  # One key for the figure, at its foot, so that it hides no run.
  if (f == 1) { set key at screen 0.5, 0.02 center bottom horizontal nobox } else { unset key }
  # "..., log scale" in a title (xrunlab puts it there when the runs span over 20x and are all
  # above 0) asks for a logarithmic axis.
  if (strstrt(t, "log scale") > 0) { set logscale y } else { unset logscale y }
  b = 2 + 5 * (f - 1)
  plot medians using 1:(column(b + 2)):(column(b + 4)):(column(b + 5)):(column(b + 3)) \
         with candlesticks whiskerbars 0.5 lw 1.5 lc rgb "#999999" fs empty title "IQR, min..max", \
       runs using 3:(column(3 + f)) with points pt 7 ps 1.3 lc rgb "#0077bb" title "run", \
       medians using ($1 - 0.3):(column(b + 1)):(0.6):(0) with vectors nohead lw 3 lc rgb "#cc3311" title "median", \
       medians using 1:(column(b + 1)):xtic(2) with points pt -1 notitle
}
unset multiplot
