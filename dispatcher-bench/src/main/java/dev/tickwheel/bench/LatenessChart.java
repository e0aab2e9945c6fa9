package dev.tickwheel.bench;

import dev.tickwheel.bench.peer.Peer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The lateness CDF of every peer in one picture (XChart; SVG, and PNG for viewers that do not render SVG): x = fire time minus deadline in ms, y = fraction of
 * timers fired by then. A curve left of 0 is an early fire.
 *
 * <p>Stateless.
 */
public final class LatenessChart {

    private static final int POINTS = 400;

    private LatenessChart() {
    }

    /** Writes {@code file} (an {@code .svg} path) from pooled, sorted samples in nanoseconds. */
    public static void write(Map<Peer, long[]> samplesNanos, String title, Path file) throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(560).title(title)
                .xAxisTitle("lateness (fire − deadline), ms").yAxisTitle("fraction of timers fired").build();
        chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideSE);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisMax(1.0);
        double xMin = 0;
        double xMax = 0;
        for (long[] s : samplesNanos.values()) {
            if (s.length == 0) {
                continue;
            }
            xMin = Math.min(xMin, s[0] / 1e6);
            xMax = Math.max(xMax, Summary.percentile(s, 99.9) / 1e6);
        }
        chart.getStyler().setXAxisMin(Math.floor(xMin * 4) / 4);
        chart.getStyler().setXAxisMax(Math.ceil(xMax * 4) / 4);
        for (Map.Entry<Peer, long[]> e : samplesNanos.entrySet()) {
            long[] s = e.getValue();
            if (s.length == 0) {
                continue;
            }
            double[] x = new double[POINTS + 1];
            double[] y = new double[POINTS + 1];
            for (int i = 0; i <= POINTS; i++) {
                int index = (int) Math.min(s.length - 1, (long) i * (s.length - 1) / POINTS);
                x[i] = s[index] / 1e6;
                y[i] = (index + 1) / (double) s.length;
            }
            XYSeries series = chart.addSeries(e.getKey().id(), x, y);
            series.setMarker(SeriesMarkers.NONE);
        }
        String name = file.toString();
        String base = name.endsWith(".svg") ? name.substring(0, name.length() - 4) : name;
        VectorGraphicsEncoder.saveVectorGraphic(chart, base, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        BitmapEncoder.saveBitmap(chart, base, BitmapEncoder.BitmapFormat.PNG);
    }
}
