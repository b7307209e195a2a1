/**
 * The inspector page (`GET /_sandbox/ui`): one HTML document, no build step and no framework. It arrives with
 * what the sandbox holds at that moment (a JSON block, drawn before anything is fetched: a screenshot taken as soon
 * as it loads shows data), then reads the control path from the same origin: the request log by long poll
 * (`/_sandbox/logs?after=N&wait=20`), and the deliveries and data every 2 s. Money is shown as the CLI shows it,
 * in the sandbox's money unit; a request or a delivery that got no answer says so, not "0". Every value is put in the page as text (textContent), never as HTML, so data
 * from the service (a customer named `<img onerror=…>`) cannot run in it. Served to loopback clients only.
 */
const UI_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'">
<title>commerce sandbox inspector</title>
<style>
  body { font: 13px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
  header { background: #1d2330; color: #fff; padding: 10px 16px; display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: baseline; }
  header h1 { font-size: 16px; margin: 0; }
  header span { opacity: .75; }
  main { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; padding: 12px; }
  section { background: #fff; border: 1px solid #dde1e7; border-radius: 6px; overflow: auto; max-height: 46vh; min-width: 0; }
  section.wide { grid-column: 1 / -1; }
  section.sales { max-height: none; }
  .charts { display: flex; flex-wrap: wrap; gap: 12px; padding: 8px 10px; }
  .chart h3 { font-size: 12px; margin: 0 0 4px; color: #344054; }
  .chart svg { display: block; }
  .chart rect.bar { fill: #2e90fa; } .chart text { font: 10px system-ui, sans-serif; fill: #667085; } .chart line { stroke: #dde1e7; }
  h2 { font-size: 13px; margin: 0; padding: 8px 10px; border-bottom: 1px solid #dde1e7; position: sticky; top: 0; background: #fff; }
  table { border-collapse: collapse; width: 100%; }
  td, th { text-align: left; padding: 3px 10px; border-bottom: 1px solid #f0f2f5; white-space: nowrap; font-variant-numeric: tabular-nums; }
  th { color: #667085; font-weight: 600; }
  .s2 { color: #067647; } .s4 { color: #b54708; } .s5, .s0 { color: #b42318; font-weight: 600; }
  details pre { white-space: pre-wrap; margin: 4px 0; font-size: 12px; }
  /* A narrow window (a laptop's half, a phone): one column, and cells wrap (a key, a URL anywhere) rather than run out of sight. */
  @media (max-width: 900px) {
    main { grid-template-columns: 1fr; }
    td, th { white-space: normal; overflow-wrap: anywhere; padding: 3px 6px; }
  }
</style>
</head>
<body>
<header><h1>commerce sandbox</h1><span id="base"></span><span id="counts"></span><a href="/openapi.json" style="color:#fff">OpenAPI document</a></header>
<main>
  <section class="wide sales"><h2>Sales, last 30 days (UTC): gross per day, as <code>commerce orders stats --since 30d --utc</code> counts it</h2><div class="charts" id="sales"></div></section>
  <section class="wide"><h2>Requests (newest first)</h2>
    <table><thead><tr><th>time</th><th>method</th><th>path</th><th>status</th><th>ms</th><th>key</th><th>bodies</th></tr></thead><tbody id="requests"></tbody></table></section>
  <section class="wide"><h2>Webhook deliveries (newest first)</h2>
    <table><thead><tr><th>time</th><th>event</th><th>type</th><th>endpoint</th><th>attempt</th><th>status</th><th>outcome</th></tr></thead><tbody id="deliveries"></tbody></table></section>
  <section><h2>Customers</h2><table><thead><tr><th>id</th><th>email</th><th>name</th><th>status</th></tr></thead><tbody id="customers"></tbody></table></section>
  <section><h2>Orders</h2><table><thead><tr><th>id</th><th>customer</th><th>status</th><th>total</th><th>currency</th></tr></thead><tbody id="orders"></tbody></table></section>
  <section class="wide"><h2>Webhook endpoints</h2><table><thead><tr><th>id</th><th>url</th><th>events</th></tr></thead><tbody id="endpoints"></tbody></table></section>
</main>
<script type="application/json" id="initial">__INITIAL__</script>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
function cell(text, cls) { const td = document.createElement("td"); td.textContent = text == null ? "" : String(text); if (cls) td.className = cls; return td; }
function row(cells) { const tr = document.createElement("tr"); for (const c of cells) tr.append(c); return tr; }
function fill(id, rows) { $(id).replaceChildren(...rows); }
async function get(path) { const r = await fetch(path, {headers: {accept: "application/json"}}); if (!r.ok) throw new Error(path + ": " + r.status); return r.json(); }
function bodies(e) {
  const d = document.createElement("details"); const s = document.createElement("summary"); s.textContent = "show"; d.append(s);
  for (const [label, v] of [["request", e.request_body], ["response", e.response_body]]) { const pre = document.createElement("pre"); pre.textContent = label + ": " + JSON.stringify(v, null, 2); d.append(pre); }
  const td = document.createElement("td"); td.append(d); return td;
}
let after = 0;
let unit = "minor";
const formats = new Map();
function money(amount, currency) {
  if (typeof amount !== "number" || typeof currency !== "string") return amount;
  let f = formats.get(currency);
  if (!f) { try { f = new Intl.NumberFormat("en", {style: "currency", currency}); } catch { return amount + " " + currency; } formats.set(currency, f); }
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  return f.format(unit === "minor" ? amount / 10 ** digits : amount);
}
const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}
// One bar chart per currency, drawn as inline SVG (no script or style from elsewhere: the page's CSP stays strict).
function drawSales(sales) {
  const W = 560, H = 170, left = 64, bottom = 28, top = 8;
  const charts = sales.currencies.map((c) => {
    const max = Math.max(1, ...c.gross);
    const step = (W - left - 8) / sales.days.length;
    const chart = svg("svg", {width: W, height: H, role: "img", "aria-label": c.currency + " gross per day"});
    chart.append(svg("line", {x1: left, x2: W - 8, y1: H - bottom, y2: H - bottom}));
    for (const [label, value] of [[money(max, c.currency), max], [money(0, c.currency), 0]])
      chart.append(svg("text", {x: left - 6, y: H - bottom - (value / max) * (H - bottom - top) + 3, "text-anchor": "end"}, String(label)));
    c.gross.forEach((v, i) => {
      const h = (v / max) * (H - bottom - top);
      const bar = svg("rect", {class: "bar", x: left + i * step + 1, y: H - bottom - h, width: Math.max(1, step - 2), height: h});
      bar.append(svg("title", {}, sales.days[i] + ": " + money(v, c.currency) + " (" + c.orders[i] + " orders)"));
      chart.append(bar);
      const last = sales.days.length - 1;
      if ((i % 7 === 0 && last - i >= 4) || i === last) chart.append(svg("text", {x: left + i * step + step / 2, y: H - 10, "text-anchor": "middle"}, sales.days[i].slice(5)));
    });
    const box = document.createElement("div"); box.className = "chart";
    const title = document.createElement("h3");
    title.textContent = c.currency + ": " + c.orders.reduce((a, b) => a + b, 0) + " orders, " + money(c.gross.reduce((a, b) => a + b, 0), c.currency);
    box.append(title, chart);
    return box;
  });
  if (charts.length === 0) { const none = document.createElement("p"); none.textContent = "No orders in the last 30 days."; charts.push(none); }
  $("sales").replaceChildren(...charts);
}
function answered(status, error) {
  if (status) return cell(status, "s" + String(status)[0]);
  const td = cell("no answer", "s0"); if (error) td.title = error; return td;
}
function addRequests(data) {
  for (const e of data) {
    after = e.seq;
    $("requests").prepend(row([cell(new Date(e.time).toLocaleTimeString()), cell(e.method), cell(e.query ? e.path + "?" + e.query : e.path), answered(e.status), cell(e.duration_ms), cell(e.key_id), bodies(e)]));
  }
  while ($("requests").children.length > 500) $("requests").lastChild.remove();
}
function draw(info, deliveries, data) {
  $("base").textContent = info.base_url;
  if (info.money_unit) unit = info.money_unit;
  const c = info.counts;
  const n = (count, one, many) => count + " " + (count === 1 ? one : many);
  $("counts").textContent = [n(c.customers, "customer", "customers"), n(c.orders, "order", "orders"), n(c.webhooks, "endpoint", "endpoints"), n(c.pending_deliveries, "delivery pending", "deliveries pending")].join(", ");
  fill("deliveries", deliveries.data.slice(0, 200).map((d) => row([cell(new Date(d.at).toLocaleTimeString()), cell(d.event_id), cell(d.event_type), cell(d.url), cell(d.attempt), answered(d.status, d.error), cell(d.outcome)])));
  fill("customers", data.customers.map((x) => row([cell(x.id), cell(x.email), cell(x.name), cell(x.status)])));
  fill("orders", data.orders.map((x) => row([cell(x.id), cell(x.customer_id), cell(x.status), cell(money(x.total, x.currency)), cell(x.currency)])));
  fill("endpoints", data.webhooks.map((x) => row([cell(x.id), cell(x.url), cell(x.events.join(", "))])));
}
async function follow() {
  for (;;) {
    try {
      addRequests((await get("/_sandbox/logs?after=" + after + "&wait=20")).data);
    } catch { await new Promise((r) => setTimeout(r, 1000)); }
  }
}
async function refresh() {
  try {
    const [info, deliveries, data, sales] = await Promise.all([get("/_sandbox"), get("/_sandbox/deliveries"), get("/_sandbox/data"), get("/_sandbox/sales")]);
    draw(info, deliveries, data);
    drawSales(sales);
  } catch {}
}
const initial = JSON.parse($("initial").textContent);
draw(initial.info, initial.deliveries, initial.data);
drawSales(initial.sales);
addRequests(initial.logs.data);
follow();
setInterval(refresh, 2000);
</script>
</body>
</html>
`

/**
 * The page with `initial` in it: the bodies of `/_sandbox`, `/_sandbox/deliveries`, `/_sandbox/data` and
 * `/_sandbox/logs` now. As JSON in a non-script block; `<`, U+2028 and U+2029 escaped, so that no value can end
 * the block (`</script>`) or break the parse.
 */
export function inspectorPage(initial: {info: unknown; deliveries: unknown; data: unknown; logs: unknown; sales: unknown}): string {
  const json = JSON.stringify(initial)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
  return UI_HTML.replace('__INITIAL__', () => json)
}
