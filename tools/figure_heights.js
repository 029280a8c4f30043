// The height each Plotly figure will have on a phone, before it is drawn.
// stdin: {"widths": [px, ...], "figures": {"id": figure JSON, ...}}
// stdout: {"id": [height in px at each width], ...}
// The layout rules are the site's own (_ext/static/course-figure-fit.js), run here as in the browser.
'use strict';
const fit = require('../_ext/static/course-figure-fit.js');

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const request = JSON.parse(input);
  const heights = {};
  for (const [id, figure] of Object.entries(request.figures)) {
    heights[id] = request.widths.map((width) => fit.fitToWidth(figure, width).layout.height);
  }
  process.stdout.write(JSON.stringify(heights));
});
