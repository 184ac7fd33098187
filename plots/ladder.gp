# The guideline's ladder on one input: each step's rate (P, cell updates per
# second, or 1/seconds where the report defines no rate), one line per
# device, so a step that pays on one device and costs on another shows as
# lines that cross. `harness report` sets these variables and loads this file:
#   datafile   a header line "index step DEVICE...", then rows
#              "index \"variant\" value..." in ladder order ("-" where none)
#   ndev       the number of device columns
#   ylabeltext the y axis;  plottitle  the title;  pngfile, svgfile  where to write
# By hand:
#   gnuplot -e "datafile='l.dat'; ndev=2; ylabeltext='P'; plottitle='t'; pngfile='l.png'; svgfile='l.svg'" plots/ladder.gp

n = int(real(ndev)) # set as a string, as every variable
set datafile missing '-'
set key autotitle columnhead
# Rates of devices an order apart share one figure; a step's factor reads
# the same at any height.
set logscale y 10
set offsets 0.3, 0.3, 0, 0
set xtics rotate by 30 right nomirror
set ytics nomirror
set grid ytics
set key outside right top
set title plottitle
set xlabel 'step (variant)'
set ylabel ylabeltext

if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1000,600 noenhanced font 'sans,10'
} else {
    set terminal png size 1000,600 noenhanced
}
set output pngfile
plot for [i = 3 : 2 + n] datafile using 1:i:xtic(2) with linespoints lw 2 pt 7 ps 1

set terminal svg size 1000,600 dynamic noenhanced font 'sans,10'
set output svgfile
replot
set output
