# One nightly series: each night's median with its IQR (q1..q3) as an error
# bar, against the night (its date and the short commit it measured), and the
# change points `harness regressions` stored as dashed vertical lines.
# `harness plot nightly` sets these variables and the change-point arrows, then
# loads this file:
#   datafile   rows "index \"MM-DD HH:MM commit\" median q1 q3"
#   plottitle, ytext   the title and the y-axis label;  pngfile  where to write
#   svgfile    (optional) an SVG of the same chart too (harness publish)
# By hand:
#   gnuplot -e "datafile='n.dat'; plottitle='t'; ytext='s'; pngfile='n.png'" plots/nightly.gp

stats datafile using 1 nooutput
n = STATS_records

set xrange [-0.5 : n - 0.5]
set xtics rotate by 45 right nomirror
set ytics nomirror
set grid ytics
set key top left
set title plottitle
set xlabel 'night (UTC start, commit)'
set ylabel ytext
# Up to ~30 labels: every k-th night named, the others ticked without text.
k = n > 30 ? int(n / 30) + 1 : 1

if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1100,600 noenhanced font 'sans,10'
} else {
    set terminal png size 1100,600 noenhanced
}
set output pngfile
plot datafile using 1:3:4:5:xtic(int($1) % k == 0 ? stringcolumn(2) : '') with yerrorbars lc rgb 'black' pt 7 ps 0.6 title 'median, IQR', \
     '' using 1:3 with lines lc rgb '#4a7ab5' notitle, \
     NaN with lines lc rgb 'red' dt 2 title 'change point'
set output

if (exists("svgfile") && strlen(svgfile) > 0) {
    set terminal svg size 1100,600 dynamic noenhanced font 'sans,10'
    set output svgfile
    replot
    set output
}
