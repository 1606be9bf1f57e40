/** A log–log line chart as SVG text: one line per series, for docs/performance-b1.png. */

/** One line of the chart. */
export interface Series {
  name: string;
  color: string;
  points: { x: number; y: number }[];
}

const W = 760;
const H = 440;
const PAD = { left: 80, right: 170, top: 50, bottom: 60 };

const decades = (lo: number, hi: number) => {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) out.push(10 ** e);
  return out;
};

const label = (v: number) => (v >= 1 ? String(v) : v.toString());

/** Renders `series` on log axes with a title and axis labels. */
export function lineChartSvg(opts: { title: string; xLabel: string; yLabel: string; xTicks: number[]; series: Series[] }): string {
  const ys = opts.series.flatMap((s) => s.points.map((p) => p.y)).filter((y) => y > 0);
  const yTicks = decades(Math.min(...ys), Math.max(...ys));
  const [y0, y1] = [Math.log10(yTicks[0]), Math.log10(yTicks[yTicks.length - 1])];
  const [x0, x1] = [Math.log10(opts.xTicks[0]), Math.log10(opts.xTicks[opts.xTicks.length - 1])];
  const px = (x: number) => PAD.left + ((Math.log10(x) - x0) / (x1 - x0 || 1)) * (W - PAD.left - PAD.right);
  const py = (y: number) => H - PAD.bottom - ((Math.log10(Math.max(y, yTicks[0])) - y0) / (y1 - y0 || 1)) * (H - PAD.top - PAD.bottom);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="DejaVu Sans, sans-serif" font-size="13">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2 - 60}" y="28" text-anchor="middle" font-size="16" font-weight="bold">${opts.title}</text>`,
  ];
  for (const t of yTicks) {
    parts.push(`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${py(t)}" y2="${py(t)}" stroke="#ddd"/>`);
    parts.push(`<text x="${PAD.left - 8}" y="${py(t) + 4}" text-anchor="end">${label(t)}</text>`);
  }
  for (const t of opts.xTicks) {
    parts.push(`<line x1="${px(t)}" x2="${px(t)}" y1="${PAD.top}" y2="${H - PAD.bottom}" stroke="#eee"/>`);
    parts.push(`<text x="${px(t)}" y="${H - PAD.bottom + 20}" text-anchor="middle">${t}</text>`);
  }
  parts.push(`<text x="${(PAD.left + W - PAD.right) / 2}" y="${H - 15}" text-anchor="middle">${opts.xLabel}</text>`);
  parts.push(`<text transform="translate(20 ${(PAD.top + H - PAD.bottom) / 2}) rotate(-90)" text-anchor="middle">${opts.yLabel}</text>`);
  opts.series.forEach((s, i) => {
    const path = s.points.map((p, j) => `${j ? 'L' : 'M'}${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ');
    parts.push(`<path d="${path}" fill="none" stroke="${s.color}" stroke-width="2.5"/>`);
    for (const p of s.points) parts.push(`<circle cx="${px(p.x)}" cy="${py(p.y)}" r="4" fill="${s.color}"/>`);
    const ly = PAD.top + 20 + i * 24;
    parts.push(`<line x1="${W - PAD.right + 15}" x2="${W - PAD.right + 40}" y1="${ly - 4}" y2="${ly - 4}" stroke="${s.color}" stroke-width="3"/>`);
    parts.push(`<text x="${W - PAD.right + 46}" y="${ly}">${s.name}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}
