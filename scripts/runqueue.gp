# SPDX-License-Identifier: GPL-2.0-or-later
# xrunlab campaign, section periodic-2001: latency against the run-queue length. Left, the
# periodic task (cyclictest beside the run): every run's p50, p99 and max against the number of
# cpu hogs, the medians joined; right, on the same axis, the audio graph's interrupt -> jackd
# wake-up p99 and jack_test's Delay Maximum. Logarithmic y (values of 0 or below are not drawn).
# Called by `xrunlab campaign` as:
#   gnuplot -c runqueue.gp DATA.csv OUT TITLE NPOS
# DATA.csv: two blocks of rows pos,hogs,x,p50,p99,max,wakeup_p99,delay_max: index 0 one row per
# run (x: its position, spread sideways), index 1 the medians per position (x = pos); an empty
# cell: not known
data = ARG1
out = ARG2
title = ARG3
npos = ARG4 + 0
# PNG (pngcairo), or SVG when xrunlab says so: gnuplot -e 'xrunlab_terminal = "svg"'.
if (!exists("xrunlab_terminal")) { xrunlab_terminal = "png" }
if (xrunlab_terminal eq "svg") {
  set terminal svg size 1400,700 background rgb "white" font "sans,10" noenhanced
} else {
  set terminal pngcairo size 1400,700 background rgb "white" font "sans,10" noenhanced
}
set output out
set datafile separator ","
set datafile missing ""
set xrange [0.5:npos + 0.5]
set logscale y
set grid ytics
set xlabel "cpu hogs beside the task (run-queue length)"
set ylabel "us"
set key below
set bmargin 8
set multiplot layout 1,2 title title
set title "the periodic task: cyclictest, SCHED_FIFO, absolute clock_nanosleep"
plot data index 0 using 3:4 with points pt 7 ps 0.9 lc rgb "#0077bb" title "p50 (run)", \
     data index 1 using 1:4:xtic(2) with linespoints lw 2 pt 5 lc rgb "#0077bb" title "p50 (median)", \
     data index 0 using 3:5 with points pt 7 ps 0.9 lc rgb "#ee7733" title "p99 (run)", \
     data index 1 using 1:5 with linespoints lw 2 pt 5 lc rgb "#ee7733" title "p99 (median)", \
     data index 0 using 3:6 with points pt 7 ps 0.9 lc rgb "#cc3311" title "max (run)", \
     data index 1 using 1:6 with linespoints lw 2 pt 5 lc rgb "#cc3311" title "max (median)"
set title "the audio graph at the same period"
plot data index 0 using 3:7 with points pt 7 ps 0.9 lc rgb "#009988" title "jackd wake-up p99 (run)", \
     data index 1 using 1:7:xtic(2) with linespoints lw 2 pt 5 lc rgb "#009988" title "jackd wake-up p99 (median)", \
     data index 0 using 3:8 with points pt 7 ps 0.9 lc rgb "#aa3377" title "Delay Maximum (run)", \
     data index 1 using 1:8 with linespoints lw 2 pt 5 lc rgb "#aa3377" title "Delay Maximum (median)"
unset multiplot
