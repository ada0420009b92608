// Slack's `data_visualization` block (a line, bar, area or pie chart) drawn on a canvas by
// Chart.js, which the sandbox serves from its own node_modules (/vendor/chart.umd.js, loaded by
// index.html as `window.Chart`): no network. Each canvas carries the chart in words (its
// `aria-label` and fallback content), and shows those words instead where Chart.js is not loaded.
import { escapeHtml } from './escape-html.js';

/** Slack's chart colours, one per series or slice (a chart has at most six). */
const COLOURS = ['#1264a3', '#2bac76', '#e8912d', '#e01e5a', '#36c5f0', '#4a154b'];
const colour = (i) => COLOURS[i % COLOURS.length];
/** A colour at a quarter strength, for an area's fill. */
const faint = (hex) => `${hex}40`;

const number = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const figure = (value) => (typeof value === 'number' && Number.isFinite(value) ? number.format(value) : '-');

/** The categories along the x axis: `axis_config.categories`, else every series' labels in order. */
function categoriesOf(chart) {
  const given = chart.axis_config?.categories;
  if (Array.isArray(given) && given.length > 0) return given.map(String);
  const seen = [];
  for (const series of chart.series ?? [])
    for (const point of series.data ?? []) if (!seen.includes(String(point.label))) seen.push(String(point.label));
  return seen;
}

/** A series' values in category order: a category the series has no point for is a gap. */
const valuesOf = (series, categories) =>
  categories.map((label) => {
    const point = (series.data ?? []).find((each) => String(each.label) === label);
    return typeof point?.value === 'number' ? point.value : null;
  });

/** The chart in words: its title, axes, and each series' values (or each slice's). */
export function chartWords(block) {
  const chart = block.chart ?? {};
  const title = String(block.title ?? 'Chart');
  if (chart.type === 'pie')
    return `${title} (pie chart): ${(chart.segments ?? []).map((s) => `${s.label} ${figure(s.value)}`).join(', ')}`;
  const categories = categoriesOf(chart);
  // "Tickets sold by time read": what is counted, then what it is counted by.
  const x = chart.axis_config?.x_label;
  const axes = [chart.axis_config?.y_label, x && `${x[0].toLowerCase()}${x.slice(1)}`].filter(Boolean).join(' by ');
  const series = (chart.series ?? []).map(
    (each) =>
      `${each.name}: ${valuesOf(each, categories)
        .map((value, i) => `${categories[i]} ${figure(value)}`)
        .join(', ')}`,
  );
  return `${title} (${chart.type ?? 'line'} chart${axes ? `, ${axes}` : ''}). ${series.join('; ')}`;
}

/** The block's place in a message: a titled canvas, drawn once it is in the page (`drawCharts`). */
export function chartHtml(block) {
  const words = escapeHtml(chartWords(block));
  return `<figure class="block chart" data-testid="chart"><div class="chart-box"><canvas role="img" aria-label="${words}" data-chart='${escapeHtml(JSON.stringify(block))}'>${words}</canvas></div></figure>`;
}

/** Chart.js's configuration for one block. */
export function chartConfig(block) {
  const chart = block.chart ?? {};
  const title = { display: true, text: String(block.title ?? ''), font: { size: 14, weight: 'bold' } };
  const base = {
    // Drawn at once in its final place: what is read back, or screenshotted, is the chart itself.
    animation: false,
    responsive: true,
    maintainAspectRatio: false,
    plugins: { title, legend: { position: 'bottom', labels: { boxWidth: 12 } } },
  };
  if (chart.type === 'pie') {
    const segments = chart.segments ?? [];
    return {
      type: 'pie',
      data: {
        labels: segments.map((segment) => String(segment.label)),
        datasets: [
          { data: segments.map((segment) => segment.value), backgroundColor: segments.map((_, i) => colour(i)) },
        ],
      },
      options: base,
    };
  }
  const area = chart.type === 'area';
  const bar = chart.type === 'bar';
  const categories = categoriesOf(chart);
  const axisTitle = (text) => ({ display: Boolean(text), text: String(text ?? '') });
  return {
    type: bar ? 'bar' : 'line',
    data: {
      labels: categories,
      datasets: (chart.series ?? []).map((series, i) => ({
        label: String(series.name),
        data: valuesOf(series, categories),
        borderColor: colour(i),
        backgroundColor: bar ? colour(i) : area ? faint(colour(i)) : colour(i),
        fill: area ? 'origin' : false,
        tension: 0,
        pointRadius: 3,
      })),
    },
    options: {
      ...base,
      scales: {
        x: { title: axisTitle(chart.axis_config?.x_label) },
        y: { beginAtZero: true, title: axisTitle(chart.axis_config?.y_label) },
      },
    },
  };
}

/**
 * Draws every chart placed in the page and not drawn yet, and lets go of those whose canvas the
 * page has since redrawn away. Without Chart.js, each chart shows its words instead.
 */
export function drawCharts(root = document) {
  const Chart = globalThis.Chart;
  if (Chart) {
    for (const chart of Object.values(Chart.instances)) if (!chart.canvas?.isConnected) chart.destroy();
  }
  for (const canvas of root.querySelectorAll('canvas[data-chart]')) {
    if (Chart?.getChart(canvas)) continue;
    if (!Chart) {
      showWords(canvas);
      continue;
    }
    try {
      new Chart(canvas, chartConfig(JSON.parse(canvas.dataset.chart)));
    } catch (error) {
      console.warn('The sandbox page could not draw a chart; showing it in words', error);
      showWords(canvas);
    }
  }
}

/** The chart's words in place of its canvas. */
function showWords(canvas) {
  const words = document.createElement('p');
  words.className = 'chart-words';
  words.dataset.testid = 'chart-words';
  words.textContent = canvas.getAttribute('aria-label');
  canvas.parentElement.replaceWith(words);
}
