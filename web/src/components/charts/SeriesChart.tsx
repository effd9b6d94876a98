import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useTheme } from '../../theme';
import './charts.css';

/** One series of a {@link SeriesChart}. */
export interface ChartSeries {
  /** Its name in the legend. */
  label: string;
  /** One value per x, same length as `x`; null is a gap. */
  values: readonly (number | null)[];
  /** A CSS custom property that holds its colour, read from the chart's element (e.g. `--chart-series-1`, charts.css). */
  colorVar: string;
}

/** What {@link SeriesChart} draws. */
export interface SeriesChartProps {
  /** The chart's accessible name (the canvas is an image to assistive technology: give the figures in a table beside it). */
  label: string;
  /** The x values, ascending (e.g. day indexes or Unix seconds): the scale is numeric, labels come from `formatX`. */
  x: readonly number[];
  series: readonly ChartSeries[];
  /** Lines (default), or bars side by side per x (up to two series: the first left of x, the second right). */
  kind?: 'line' | 'bars';
  /** Height of the plot and its axes, CSS px (the legend adds to it). Default 240. */
  height?: number;
  /** An x value as an axis label (e.g. "30 Nov"). */
  formatX: (x: number) => string;
  /** An x value in the legend, where the hovered point is named (default `formatX`). */
  formatXLong?: (x: number) => string;
  /** A value in the legend (e.g. "1,234 messages"). */
  formatY: (v: number) => string;
  /** A value as a y axis label (default `formatY`; keep it short: the axis is {@link Y_AXIS_WIDTH} px wide). */
  formatYTick?: (v: number) => string;
  /** Only whole-number ticks on the y axis (counts, bytes). Default false. */
  integerY?: boolean;
  /** Draw the axes and the grid. Default true (false for a sparkline). */
  axes?: boolean;
  /** What the x values are, the legend's first entry (e.g. "Day"). Default "x". */
  xLabel?: string;
  /** Show the legend (series names and the hovered values; the last x's while nothing is hovered). Default true. */
  legend?: boolean;
  className?: string;
}

/** Width of the y axis, CSS px (labels are right-aligned inside it). */
export const Y_AXIS_WIDTH = 64;
/** Least space between two x axis labels, CSS px (a "30 Nov" label is about 40 px wide). */
export const X_LABEL_SPACE = 56;
/** Used until the element has a width (a hidden tab, jsdom). */
const FALLBACK_WIDTH = 600;
/** Colour used when a custom property is not set. */
const FALLBACK_COLOR = '#0e7490';

/** Tick steps: 1, 2, 5 × 10ⁿ for whole numbers from 1 up. */
const INTEGER_INCRS = Array.from({ length: 16 }, (_, n) => [1, 2, 5].map((m) => m * 10 ** n)).flat();
/** x steps for day-like indexes: a label every day, 2, 3, 5, 7, 10, 14 or 30 steps. */
const X_INCRS = [1, 2, 3, 5, 7, 10, 14, 30, 60, 90, 180, 365];

/**
 * A legend value: series `si` at the hovered index, or at the last x while nothing is hovered (so the
 * legend names the latest point instead of blanks); "–" for a gap.
 */
function legendValue(u: uPlot, si: number, idx: number | null, format: (v: number) => string): string {
  const xs = u.data[0];
  const at = idx ?? xs.length - 1;
  const v = u.data[si]?.[at];
  return v == null ? '–' : format(v);
}

function cssVar(el: Element, name: string, fallback: string): string {
  const v = getComputedStyle(el).getPropertyValue(name).trim();
  return v || fallback;
}

/**
 * A line or bar chart of a few series over a numeric x axis, drawn on a canvas by uPlot
 * (docs/web.md "Charts": chosen for size and speed). Generic: the Usage page's daily figures, and
 * any small chart elsewhere (a sparkline: `legend={false} axes={false}`, a small `height`).
 *
 * Works under the pages' Content Security Policy: uPlot builds its DOM with `createElement` and sets
 * sizes through the CSSOM (`element.style`), never a `style` attribute in markup or a `<style>` tag;
 * its stylesheet is bundled with the app's CSS. Colours come from CSS custom properties (charts.css),
 * read again when the theme changes. The chart follows its element's width (ResizeObserver).
 * The chart is rebuilt when its kind, series names or colours, height or the theme change, and
 * only redrawn when the values change. Zooming by dragging is off.
 */
export function SeriesChart(props: SeriesChartProps) {
  const { label, x, series, kind = 'line', height = 240, integerY = false, legend = true, axes = true, xLabel = 'x', className } = props;
  const { theme } = useTheme();
  const root = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  // The formatters are read through a ref so that new function identities do not rebuild the chart.
  const fmt = useRef(props);
  fmt.current = props;

  const data = (): uPlot.AlignedData => [x as number[], ...series.map((s) => s.values as (number | null)[])];
  const dataRef = useRef(data);
  dataRef.current = data;

  const shape = JSON.stringify([kind, height, integerY, legend, axes, xLabel, series.map((s) => [s.label, s.colorVar])]);

  useEffect(() => {
    const el = root.current;
    if (!el) return;
    void theme; // rebuilt on a theme change: the colours are read from CSS
    const axisColor = cssVar(el, '--chart-axis', '#475569');
    const gridColor = cssVar(el, '--chart-grid', '#d5dbe5');
    const parsed = JSON.parse(shape) as [string, number, boolean, boolean, boolean, string, Array<[string, string]>];
    const seriesShape = parsed[6];
    const bars = kind === 'bars';
    const opts: uPlot.Options = {
      width: el.clientWidth || FALLBACK_WIDTH,
      height,
      legend: { show: legend, live: true },
      cursor: { drag: { x: false, y: false, setScale: false }, points: { show: !bars } },
      scales: {
        x: { time: false, range: (_u, min, max) => (bars ? [min - 0.5, max + 0.5] : [min, max === min ? min + 1 : max]) },
        y: { range: (_u, _min, max) => uPlot.rangeNum(0, max > 0 ? max : 1, 0.1, true) },
      },
      axes: [
        {
          show: axes,
          stroke: axisColor,
          grid: { show: false },
          ticks: { stroke: gridColor, width: 1 },
          space: X_LABEL_SPACE,
          incrs: X_INCRS,
          values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? fmt.current.formatX(v) : '')),
        },
        {
          show: axes,
          stroke: axisColor,
          grid: { stroke: gridColor, width: 1 },
          ticks: { show: false },
          size: Y_AXIS_WIDTH,
          ...(integerY ? { incrs: INTEGER_INCRS } : {}),
          values: (_u, splits) => splits.map((v) => (fmt.current.formatYTick ?? fmt.current.formatY)(v)),
        },
      ],
      series: [
        { label: xLabel, value: (u, _v, _si, idx) => legendValue(u, 0, idx, fmt.current.formatXLong ?? fmt.current.formatX) },
        ...seriesShape.map(([name, colorVar], i): uPlot.Series => {
          const color = cssVar(el, colorVar, FALLBACK_COLOR);
          return {
            label: name,
            stroke: color,
            value: (u, _v, si, idx) => legendValue(u, si, idx, fmt.current.formatY),
            ...(bars
              ? {
                  fill: color,
                  width: 0,
                  paths: uPlot.paths.bars!({ size: [seriesShape.length > 1 ? 0.4 : 0.7, 40], align: seriesShape.length > 1 ? (i === 0 ? -1 : 1) : 0 }),
                  points: { show: false },
                }
              : { width: 2, points: { show: true, size: 5 } }),
          };
        }),
      ],
    };
    const u = new uPlot(opts, dataRef.current(), el);
    plot.current = u;
    let observer: ResizeObserver | undefined;
    if (typeof ResizeObserver === 'function') {
      observer = new ResizeObserver(() => {
        const width = el.clientWidth;
        if (width > 0 && width !== u.width) u.setSize({ width, height });
      });
      observer.observe(el);
    }
    return () => {
      observer?.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [shape, kind, height, integerY, legend, axes, xLabel, theme]);

  // New values for the same chart: redraw only.
  const valuesKey = JSON.stringify([x, series.map((s) => s.values)]);
  useEffect(() => {
    void valuesKey;
    plot.current?.setData(dataRef.current());
  }, [valuesKey]);

  return <div ref={root} className={`tw-chart${className ? ` ${className}` : ''}`} role="img" aria-label={label} data-testid="series-chart" />;
}
