# Launch cost against argument count, as the report's Figure 1 draws it:
# microseconds per kernel launch (the enqueue loop alone, median with q1..q3
# bars) for n buffer arguments and for n int arguments, one line per device
# and kind. `harness plot launch-cost` and launch_cost_plot() set these and
# load this file:
#   datafile   one block per line (blocks apart by two blank lines); each block
#              starts with a quoted title, then rows "nargs median_us q1_us q3_us"
#   nseries    the number of blocks
#   colors     a colour index per block ("1 1 2 2": one colour per device)
#   dashes     a dash type per block ("1 2 1 2": solid buffers, dashed ints)
#   plottitle  the title;  pngfile  where to write;  svgfile  (optional) too
# By hand:
#   gnuplot -e "datafile='lc.dat'; nseries=2; colors='1 1'; dashes='1 2'; plottitle='t'; pngfile='lc.png'" plots/launch_cost.gp

set title plottitle
set xlabel 'number of kernel arguments'
set ylabel 'microseconds per launch (enqueue)'
# Launch cost is a small number on a large offset; starting at zero shows the
# slope in proportion, as the report's figure does.
set yrange [0 : *]
set xrange [-0.5 : *]
set grid
set key top left box opaque
set tics nomirror

if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1000,600 noenhanced font 'sans,10'
} else {
    set terminal png size 1000,600 noenhanced
}
set output pngfile
plot for [i = 0 : nseries - 1] datafile index i using 1:2:3:4 with yerrorlines \
     lc int(word(colors, i + 1)) dt int(word(dashes, i + 1)) lw 1.5 pt 7 ps 0.6 \
     title columnheader(1)

if (exists("svgfile")) {
    set terminal svg size 1000,600 dynamic noenhanced font 'sans,10'
    set output svgfile
    replot
}
set output
