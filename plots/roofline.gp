# A roofline like the report's Figure 6: the device's measured copy bandwidth
# and FP32 rate bound the attainable rate at each operational intensity; each
# input of one variant is placed by its intensity (from the app's cost model)
# and the FLOP/s it achieved. `harness report` sets these variables and loads
# this file:
#   datafile     rows "\"label\" intensity_flop_per_byte achieved_gflops"
#   peak_gbs     measured copy bandwidth (GB/s);  peak_gflops  measured FP32 (GFLOP/s)
#   plottitle    the title;  pngfile, svgfile  where to write
# By hand:
#   gnuplot -e "datafile='r.dat'; peak_gbs='2990'; peak_gflops='61000'; plottitle='t'; pngfile='r.png'; svgfile='r.svg'" plots/roofline.gp

bw = real(peak_gbs)
fp = real(peak_gflops)
ridge = fp / bw
roof(x) = (x * bw < fp) ? x * bw : fp

set logscale xy 10
set xrange [0.01 : 1000]
# The floor a decade under the slowest point: a fixed floor of 1 GFLOP/s
# dropped a slow device's points silently (OpenMP's 128x128 in a --quick
# report here ran at 0.5 GFLOP/s).
stats datafile using 3 nooutput
ylo = STATS_min < 1 ? 10 ** floor(log10(STATS_min)) : 1
set yrange [ylo : 10 * fp]
set grid
set key bottom right
set title plottitle
set xlabel 'operational intensity (FLOP/byte)'
set ylabel 'GFLOP/s'
set label 1 sprintf('ridge %.1f FLOP/byte', ridge) at ridge, fp * 1.6 center
set samples 400

if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 900,600 noenhanced font 'sans,10'
} else {
    set terminal png size 900,600 noenhanced
}
set output pngfile
plot roof(x) with lines lw 2 lc rgb '#333333' \
         title sprintf('roof: %.0f GB/s copy, %.0f GFLOP/s FP32 (measured)', bw, fp), \
     datafile using 2:3 with points pt 7 ps 1.5 lc rgb '#c0392b' title 'achieved', \
     '' using 2:3:1 with labels offset char 1,1 left notitle

set terminal svg size 900,600 dynamic noenhanced font 'sans,10'
set output svgfile
replot
set output
