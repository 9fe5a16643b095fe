import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { count } from './format';
import type { UsageHistory } from './contract';
import { axisLabel, limitLine, type StackLayer, stackedSeries, type UsageWindow, yRange } from './usage-data';

/**
 * One window's stacked bars, drawn by uPlot on a canvas: each operation's admitted requests,
 * the refused ones hatched on top, and the plan's limit as a dashed line. uPlot sizes its
 * elements through the CSSOM (element.style), which the page's CSP allows; its colours are the
 * style sheet's (`--usage-*`), read here, so they are stated once. The canvas is an image to
 * assistive technology, named by what it shows; the table view has the numbers.
 */

/** Colours of the operations, in stacking order, then again from the first. */
const OPERATION_COLOURS = 8;
const HEIGHT = { wide: 280, narrow: 220 };

function colourOf(element: Element, name: string): string {
  return getComputedStyle(element).getPropertyValue(name).trim() || '#1a1a1a';
}

/** Diagonal red lines on white: refused requests stay apart from the operations without colour alone. */
function hatch(colour: string): CanvasPattern | string {
  const tile = document.createElement('canvas');
  tile.width = 8;
  tile.height = 8;
  const context = tile.getContext('2d');
  if (!context) return colour;
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, 8, 8);
  context.strokeStyle = colour;
  context.lineWidth = 2;
  context.beginPath();
  context.moveTo(0, 8);
  context.lineTo(8, 0);
  context.moveTo(-2, 2);
  context.lineTo(2, -2);
  context.moveTo(6, 10);
  context.lineTo(10, 6);
  context.stroke();
  return context.createPattern(tile, 'repeat') ?? colour;
}

function seriesOf(element: Element, layer: StackLayer): uPlot.Series {
  const refused = layer.kind === 'refused';
  const stroke = colourOf(
    element,
    refused ? '--usage-refused' : `--usage-op-${layer.index % OPERATION_COLOURS}`,
  );
  return {
    label: layer.label,
    stroke,
    width: refused ? 1 : 0,
    fill: refused ? hatch(stroke) : stroke,
    paths: uPlot.paths.bars?.({ size: [0.8, 40] }),
    points: { show: false },
  };
}

/** The options of one chart: bars on a time axis (UTC days named in UTC), the limit drawn over them. */
function optionsOf(element: HTMLElement, history: UsageHistory, span: UsageWindow, width: number) {
  const series = stackedSeries(history[span], history.operations, span);
  const limit = limitLine(history.limits, span);
  const { top, limitShown } = yRange(series.highest, limit);
  const limitColour = colourOf(element, '--usage-limit');
  const axisColour = colourOf(element, '--text');
  const options: uPlot.Options = {
    width,
    height: width < 480 ? HEIGHT.narrow : HEIGHT.wide,
    legend: { show: false },
    cursor: { show: false },
    select: { show: false, left: 0, top: 0, width: 0, height: 0 },
    ...(span === 'days'
      ? { tzDate: (seconds: number) => uPlot.tzDate(new Date(seconds * 1000), 'UTC') }
      : {}),
    scales: {
      x: { time: true, range: () => [series.range[0], series.range[1]] },
      y: { range: () => [0, top] },
    },
    axes: [
      {
        stroke: axisColour,
        grid: { show: false },
        space: span === 'hours' ? 60 : 50,
        values: (_chart, ticks) => ticks.map((tick) => axisLabel(tick, span)),
      },
      { stroke: axisColour, size: 56, values: (_chart, values) => values.map((value) => count(value)) },
    ],
    series: [{}, ...series.layers.map((layer) => seriesOf(element, layer))],
    hooks: {
      draw: [
        (chart) => {
          if (!limitShown) return;
          const ratio = window.devicePixelRatio || 1;
          const y = chart.valToPos(limit, 'y', true);
          const { ctx, bbox } = chart;
          ctx.save();
          ctx.strokeStyle = limitColour;
          ctx.lineWidth = 2 * ratio;
          ctx.setLineDash([8 * ratio, 5 * ratio]);
          ctx.beginPath();
          ctx.moveTo(bbox.left, y);
          ctx.lineTo(bbox.left + bbox.width, y);
          ctx.stroke();
          ctx.restore();
        },
      ],
    },
  };
  const data: uPlot.AlignedData = [
    series.x as number[],
    ...series.layers.map((layer) => layer.values as number[]),
  ];
  return { options, data };
}

/** The limit's words: what it is, and whether the chart reaches it. */
function limitWords(span: UsageWindow, limit: number, shown: boolean): string {
  const what = span === 'hours' ? 'Most an hour can admit' : 'Per-day limit';
  return `${what}: ${count(limit)}${shown ? '' : ', above the top of this chart'}`;
}

/** The words that name the chart: what it shows, and where the numbers are. */
function chartName(span: UsageWindow, limitText: string, limitShown: boolean): string {
  const per = span === 'hours' ? 'hour, the last 24 hours' : 'UTC day, the last 30 days';
  return `Requests per ${per}: admitted ones stacked by operation, refused ones hatched on top. ${limitText}${limitShown ? ' (the dashed line)' : ''}. The table view has the numbers.`;
}

export function UsageChart({ history, span }: { history: UsageHistory; span: UsageWindow }) {
  const ref = useRef<HTMLDivElement>(null);
  const limit = limitLine(history.limits, span);
  const { limitShown } = yRange(stackedSeries(history[span], history.operations, span).highest, limit);
  const limitText = limitWords(span, limit, limitShown);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const widthOf = () => Math.max(240, Math.floor(element.clientWidth));
    const { options, data } = optionsOf(element, history, span, widthOf());
    const chart = new uPlot(options, data, element);
    const resized = new ResizeObserver(() => {
      const width = widthOf();
      if (width !== chart.width) chart.setSize({ width, height: width < 480 ? HEIGHT.narrow : HEIGHT.wide });
    });
    resized.observe(element);
    return () => {
      resized.disconnect();
      chart.destroy();
    };
  }, [history, span]);
  return (
    <figure class="usage-chart">
      <div class="usage-canvas" ref={ref} role="img" aria-label={chartName(span, limitText, limitShown)} />
      <figcaption>
        <ul class="legend">
          {history.operations.map((operation, index) => (
            <li key={operation}>
              <span class={`swatch op-${index % OPERATION_COLOURS}`} aria-hidden="true" />
              <code>{operation}</code>
            </li>
          ))}
          <li>
            <span class="swatch refused" aria-hidden="true" />
            Refused (at least)
          </li>
          <li>
            <span class="swatch limit" aria-hidden="true" />
            {limitText}
          </li>
        </ul>
      </figcaption>
    </figure>
  );
}
