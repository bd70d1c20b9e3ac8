# SPDX-License-Identifier: GPL-2.0-or-later
# xrunlab compare: per group, the distribution of its runs (a strip plot: one column per group,
# its runs spread side by side, the group's median as a bar): Delay Maximum and p99 delay on the
# left, XRUN Count on the right. Imported jack_test runs are open symbols.
# Called by `xrunlab compare` as: gnuplot -d -c compare.gp DATA.csv OUT.png|OUT.svg [BY]
# DATA.csv columns: label,run_index,delay_max_us,delay_p99_us,xrun_count,imported,x,tick,group,
#                   median_xrun_count,median_delay_max_us
# BY: what the runs are grouped by (compare --by: label, host, kernel, backend, policy).
# The x tick is the group's name (column 1) on its first run (run_index 1): the empty `tick`
# column of the other runs made gnuplot draw stray labels ("0", a group's name many times).
data = ARG1
out = ARG2
by = ARGC >= 3 ? ARG3 : "label"
# PNG (pngcairo), or SVG when xrunlab says so: gnuplot -e 'xrunlab_terminal = "svg"'
# (--plot-format svg; engine/report/plot_format.hpp). Run by hand without it: PNG.
if (!exists("xrunlab_terminal")) { xrunlab_terminal = "png" }
if (xrunlab_terminal eq "svg") {
  set terminal svg size 1400,900 background rgb "white" font "sans,10" noenhanced
} else {
  set terminal pngcairo size 1400,900 background rgb "white" font "sans,10" noenhanced
}
set output out
set datafile separator ","
set datafile missing ""
stats data using 7 nooutput
groups = int(STATS_max + 0.5) + 1
set xrange [-0.7:groups - 0.3]
set key inside top left box opaque
set grid ytics
set xtics rotate by -35 scale 0 nomirror
set bmargin 17
set multiplot layout 1,2 title sprintf("xrunlab compare: every run, grouped by %s (imported jack_test runs included)", by)
# Left: delays per run; log scale when they span more than 10x and none is 0 or below (a log
# axis cannot show a 0, and a run must not vanish from the picture: jack_test runs that saw no
# late wake-up report a Delay Maximum of 0).
stats data using 3 nooutput
logscale = STATS_min > 0 && STATS_max > 10 * STATS_min
if (logscale) { set logscale y; set format y "%.0s%c" } else { set yrange [0:*] }
set ylabel "usecs"
set title "Delay Maximum and p99 delay per run; the group's median Delay Maximum".(logscale ? " (log scale)" : "")
plot data using 7:(column(6) == 0 ? $3 : NaN):xtic(column(2) == 1 ? strcol(1) : "") every ::1 with points pt 7 ps 1.3 lc rgb "#cc3311" title "Delay Maximum", \
     data using 7:(column(6) == 1 ? $3 : NaN) every ::1 with points pt 6 ps 1.5 lc rgb "#cc3311" title "Delay Maximum (imported)", \
     data using 7:4 every ::1 with points pt 5 ps 1.1 lc rgb "#0077bb" title "p99 delay (xrunlab runs)", \
     data using (column(2) == 1 ? $9 - 0.35 : NaN):(column(2) == 1 ? $11 : NaN):(0.7):(0) every ::1 with vectors nohead lw 3 lc rgb "#882255" title "median Delay Maximum"
unset logscale y
set format y "%g"
set ylabel "xruns"
set title "XRUN Count per run; the group's median"
set yrange [0:*]
plot data using 7:(column(6) == 0 ? $5 : NaN):xtic(column(2) == 1 ? strcol(1) : "") every ::1 with points pt 7 ps 1.3 lc rgb "#ee7733" title "XRUN Count", \
     data using 7:(column(6) == 1 ? $5 : NaN) every ::1 with points pt 6 ps 1.5 lc rgb "#ee7733" title "XRUN Count (imported)", \
     data using (column(2) == 1 ? $9 - 0.35 : NaN):(column(2) == 1 ? $10 : NaN):(0.7):(0) every ::1 with vectors nohead lw 3 lc rgb "#882255" title "median"
unset multiplot
