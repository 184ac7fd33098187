# The variants of one app at one input on every device: clustered by
# variant, one bar per device, the median runtime with IQR whiskers.
# `harness plot variants` sets these variables and loads this file:
#   datafile   a header row (variant, then per device its name, q1, q3), then
#              per variant "\"name\" median q1 q3 ..." ("?" where a device lacks it)
#   ndev       how many devices;  plottitle  the title;  pngfile, svgfile  where to write
# By hand:
#   gnuplot -e "datafile='v.dat'; ndev=2; plottitle='t'; pngfile='v.png'; svgfile='v.svg'" plots/variants.gp

set datafile missing '?'
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.7 border -1
set boxwidth 0.9
set key below autotitle columnheader noenhanced
set title plottitle noenhanced
set xtics rotate by 30 right nomirror noenhanced
set ytics nomirror
set grid ytics
set yrange [0 : *]
set offsets 0, 0, graph 0.08, 0
set ylabel 'median runtime (s), lower is faster'

if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1000,600 noenhanced font 'sans,10'
} else {
    set terminal png size 1000,600 noenhanced
}
set output pngfile
plot for [d = 0 : ndev - 1] datafile using (column(2 + 3 * d)):(column(3 + 3 * d)):(column(4 + 3 * d)):xtic(1) \
     title columnheader(2 + 3 * d)

set terminal svg size 1000,600 dynamic noenhanced font 'sans,10'
set output svgfile
replot
set output
