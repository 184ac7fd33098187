# The work-group sweep of one device, input and variant, drawn like the
# report's Figures 3-5: one bar per shape, the median runtime, IQR whiskers.
# `harness plot wg` sets these variables and loads this file:
#   datafile   rows "index \"WxH\" median_s q1_s q3_s", ordered by total size then width
#   plottitle  the title;  pngfile, svgfile  where to write
# By hand:
#   gnuplot -e "datafile='wg.dat'; plottitle='t'; pngfile='wg.png'; svgfile='wg.svg'" plots/wg.gp

stats datafile using 5 nooutput
n = STATS_records
ymax = STATS_max

# Categorical x: the index places the bar, the label names it.
set xrange [-0.6 : n - 0.4]
# Headroom above the tallest whisker keeps the key clear of the bars.
set yrange [0 : 1.2 * ymax]
set xtics rotate by 45 right nomirror
set ytics nomirror
set grid ytics
set style fill solid 0.6 border -1
set boxwidth 0.6
set key top left
set title plottitle
set xlabel 'work-group shape (WxH), by total size then width'
set ylabel 'median runtime (s)'

# pngcairo draws better text; plain png (libgd) is the fallback.
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1000,600 noenhanced font 'sans,10'
} else {
    set terminal png size 1000,600 noenhanced
}
set output pngfile
plot datafile using 1:3:xtic(2) with boxes lc rgb '#4a7ab5' title 'median', \
     '' using 1:3:4:5 with yerrorbars lc rgb 'black' pt 7 ps 0.3 title 'IQR (q1..q3)'

set terminal svg size 1000,600 dynamic noenhanced font 'sans,10'
set output svgfile
replot
set output
