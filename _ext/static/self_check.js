/* Self-check for the exercises on the static site: no kernel needed.
 *
 * Each exercise form (.course-self-check) carries its declaration as JSON: the exercise's own
 * output in the notebook (the same data the Python checkers use), which the build's renderer
 * (_ext/course_outputs.py) writes into the form.
 * This script reads what the reader typed, judges it with the same rules and messages as
 * embedding_course/exercises/engine.py, and writes the verdict into the form's live region.
 */
(function () {
  "use strict";

  var FEW = 3;

  function Unreadable(message) { this.message = message; }

  // ------------------------------------------------------------------ formatting (engine.fmt)

  function fmt(value) {
    if (!isFinite(value)) { return String(value); }
    if (value === Math.round(value) && Math.abs(value) < 1e15) {
      return Math.round(value).toLocaleString("en-US");
    }
    if (Math.abs(value) < 1e-3) {
      return value.toExponential(3);
    }
    var digits = Math.max(0, 3 - Math.floor(Math.log10(Math.abs(value))));
    return value.toLocaleString("en-US", {minimumFractionDigits: digits, maximumFractionDigits: digits});
  }

  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? values[name] : whole;
    });
  }

  function close(got, want, tolerance, relative) {
    return Math.abs(got - want) <= tolerance * (relative ? Math.abs(want) : 1);
  }

  // ------------------------------------------------------------------ arrays

  function shapeOf(value) {
    if (!Array.isArray(value)) { return []; }
    if (value.length === 0 || !Array.isArray(value[0])) { return [value.length]; }
    var inner = shapeOf(value[0]);
    value.forEach(function (row) {
      if (JSON.stringify(shapeOf(row)) !== JSON.stringify(inner)) {
        throw new Unreadable("the rows have different lengths; every row needs the same number of entries.");
      }
    });
    return [value.length].concat(inner);
  }

  function flatten(value) {
    return Array.isArray(value) ? [].concat.apply([], value.map(flatten)) : [value];
  }

  function describeShape(shape) {
    if (shape.length === 1) { return shape[0] === 1 ? "one number" : shape[0] + " numbers"; }
    return "a " + shape.join(" x ") + " array";
  }

  function wantedValues(kind) {  // engine._wanted_values
    var shape = shapeOf(kind.expected);
    if (kind.booleans && shape.length === 1 && shape[0] === 1) { return "one answer, True or False"; }
    if (kind.booleans) { return describeShape(shape) + " (True/False or 1/0)"; }
    return describeShape(shape);
  }

  function unravel(flat, shape) {
    var index = [];
    for (var d = shape.length - 1; d >= 0; d--) { index.unshift(flat % shape[d]); flat = Math.floor(flat / shape[d]); }
    return index;
  }

  function readNumbers(value) {
    shapeOf(value);
    flatten(value).forEach(function (x) {
      if (!isFinite(x)) {
        throw new Unreadable("the answer holds NaN or infinity; every entry must be a finite number.");
      }
    });
    return value;
  }

  // ------------------------------------------------------------------ judging (engine.judge)

  function judgeNumber(kind, answer) {
    if (Array.isArray(answer) && answer.length !== 1) {
      throw new Unreadable("give one number, not " + answer.length + " values.");
    }
    if (kind.nan_hint && flatten([answer]).length === 1 && Number.isNaN(flatten([answer])[0])) {
      return [kind.nan_hint];
    }
    var values = flatten(readNumbers(answer));
    if (values.length !== 1) { throw new Unreadable("give one number, not " + values.length + " values."); }
    var got = values[0];
    if (kind.whole && got !== Math.round(got)) { return ["give a whole number; you gave " + fmt(got) + "."]; }
    if (close(got, kind.expected, kind.tolerance, kind.relative)) { return []; }
    for (var i = 0; i < kind.mistakes.length; i++) {
      var mistake = kind.mistakes[i];
      var tolerance = mistake.tolerance === null ? kind.tolerance : mistake.tolerance;
      if (close(got, mistake.value, tolerance, kind.relative)) { return [mistake.hint]; }
    }
    if (kind.range_hint && ((kind.low !== null && got < kind.low) || (kind.high !== null && got > kind.high))) {
      return [format(kind.range_hint, {got: fmt(got)})];
    }
    return [format(kind.otherwise, {got: fmt(got)})];
  }

  function elementName(kind, index) {
    if (kind.labels.length && index.length === 1) { return kind.labels[index[0]]; }
    if (index.length === 1) { return kind.element + " " + index[0]; }
    return kind.element + "[" + index.join(", ") + "]";
  }

  function elementProblem(kind, flat, got, want, shape) {
    var index = unravel(flat, shape);
    var note = kind.notes.length && kind.notes[flat] ? kind.notes[flat] : "";
    var text = elementName(kind, index) + " is " + fmt(got[flat]) + " but should be " + fmt(want[flat]);
    return note ? text + "; " + note : text + ".";
  }

  function judgeValues(kind, answer) {
    readNumbers(answer);
    var shape = shapeOf(answer), wantShape = shapeOf(kind.expected);
    var got = flatten(answer), want = flatten(kind.expected);
    var squeeze = function (s) { return s.filter(function (n) { return n !== 1; }).join("x"); };
    var sameShape = JSON.stringify(shape) === JSON.stringify(wantShape);
    if (!sameShape && got.length === want.length && squeeze(shape) === squeeze(wantShape)) {
      shape = wantShape; sameShape = true;
    }
    if (!sameShape) {
      for (var h = 0; h < kind.shape_hints.length; h++) {
        if (JSON.stringify(kind.shape_hints[h][0]) === JSON.stringify(shape)) { return [kind.shape_hints[h][1]]; }
      }
      return ["give " + wantedValues(kind) + "; got " + (shape.length ? describeShape(shape) : "one number") + "."];
    }
    if (kind.whole && got.some(function (x) { return x !== Math.round(x); })) {
      return ["every entry must be a whole number."];
    }
    var wrongAt = [];
    got.forEach(function (x, i) {
      if (Math.abs(x - want[i]) > kind.tolerance * (kind.relative ? Math.abs(want[i]) : 1)) { wrongAt.push(i); }
    });
    if (!wrongAt.length) { return []; }
    for (var m = 0; m < kind.mistakes.length; m++) {
      var mistake = kind.mistakes[m];
      var tolerance = mistake.tolerance === null ? kind.tolerance : mistake.tolerance;
      var value = flatten(mistake.value);
      if (JSON.stringify(shapeOf(mistake.value)) === JSON.stringify(wantShape)
          && got.every(function (x, i) { return Math.abs(x - value[i]) <= tolerance; })) {
        return [mistake.hint];
      }
    }
    if (kind.allowed.length && !got.every(function (x) { return kind.allowed.indexOf(x) >= 0; })) {
      return [kind.allowed_hint];
    }
    if (kind.range_hint && ((kind.low !== null && Math.min.apply(null, got) < kind.low)
                            || (kind.high !== null && Math.max.apply(null, got) > kind.high))) {
      return [kind.range_hint];
    }
    if (kind.order_hint && wantShape.length === 1) {
      var sortedGot = got.slice().sort(function (a, b) { return a - b; });
      var sortedWant = want.slice().sort(function (a, b) { return a - b; });
      if (sortedGot.every(function (x, i) { return Math.abs(x - sortedWant[i]) <= kind.tolerance + 1e-5 * Math.abs(sortedWant[i]); })) {
        return [kind.order_hint];
      }
    }
    var problems;
    if (wrongAt.length <= FEW) {
      problems = wrongAt.map(function (i) { return elementProblem(kind, i, got, want, wantShape); });
    } else {
      var worst = 0;
      got.forEach(function (x, i) { if (Math.abs(x - want[i]) > Math.abs(got[worst] - want[worst])) { worst = i; } });
      problems = [wrongAt.length + " of " + want.length + " entries are wrong; the worst: "
                  + elementProblem(kind, worst, got, want, wantShape)];
    }
    if (kind.otherwise) { problems.push(kind.otherwise); }
    return problems;
  }

  function sameWords(a, b, ordered) {
    if (ordered) { return JSON.stringify(a) === JSON.stringify(b); }
    return JSON.stringify(a.slice().sort()) === JSON.stringify(b.slice().sort());
  }

  // Each word as the exercise spells it, when it is one of its words in other capitals ("Paris").
  function knownSpelling(kind, words) {
    var known = kind.choices.concat(kind.expected);
    kind.mistakes.forEach(function (m) { known = known.concat(m.value); });
    kind.forbidden.forEach(function (f) { known.push(f[0]); });
    var byFolded = {};
    known.forEach(function (w) { byFolded[w.toLowerCase()] = w; });
    return words.map(function (w) {
      return known.indexOf(w) >= 0 || !byFolded.hasOwnProperty(w.toLowerCase()) ? w : byFolded[w.toLowerCase()];
    });
  }

  function judgeWords(kind, words) {
    if (words.length !== kind.expected.length) {
      var spaced = words.filter(function (w) { return w.trim().split(/\s+/).length > 1; });
      var apart = spaced.length ? " (separate them with commas: '" + spaced[0] + "' is one entry)" : "";
      return ["give exactly " + kind.expected.length + " words; you gave " + words.length + apart + "."];
    }
    words = knownSpelling(kind, words);
    if (kind.choices.length) {
      var unknown = words.filter(function (w) { return kind.choices.indexOf(w) < 0; });
      if (unknown.length) {
        return ["unknown " + kind.noun + " '" + unknown[0] + "'; choose from: " + kind.choices.join(", ") + "."];
      }
    }
    for (var f = 0; f < kind.forbidden.length; f++) {
      if (words.indexOf(kind.forbidden[f][0]) >= 0) { return [kind.forbidden[f][1]]; }
    }
    if (sameWords(words, kind.expected, kind.ordered)) { return []; }
    for (var m = 0; m < kind.mistakes.length; m++) {
      if (sameWords(words, kind.mistakes[m].value, kind.ordered)) { return [kind.mistakes[m].hint]; }
    }
    if (kind.ordered && kind.order_hint && sameWords(words, kind.expected, false)) { return [kind.order_hint]; }
    return [kind.otherwise];
  }

  function judgeMapping(kind, got) {
    var expected = {};
    kind.expected.forEach(function (pair) { expected[pair[0]] = pair[1]; });
    var problems = [];
    kind.excluded.forEach(function (pair) {
      var value = Object.prototype.hasOwnProperty.call(got, pair[0]) ? got[pair[0]] : 0;
      delete got[pair[0]];
      if (value !== 0) { problems.push(pair[1]); }
    });
    Object.keys(got).forEach(function (key) { if (got[key] === 0) { delete got[key]; } });
    var numeric = function (a, b) { return a - b; };
    var wantKeys = Object.keys(expected).map(Number).sort(numeric);
    var gotKeys = Object.keys(got).map(Number).sort(numeric);
    wantKeys.forEach(function (k) {
      if (gotKeys.indexOf(k) < 0) { problems.push(format(kind.missing, {key: kind.key, k: k})); }
    });
    gotKeys.forEach(function (k) {
      if (wantKeys.indexOf(k) < 0) { problems.push(format(kind.extra, {key: kind.key, k: k})); }
    });
    wantKeys.forEach(function (k) {
      if (gotKeys.indexOf(k) < 0 || close(got[k], expected[k], kind.tolerance, kind.relative)) { return; }
      var hints = kind.mistakes.filter(function (m) {
        return m[0] === k && close(got[k], m[1], kind.tolerance, kind.relative);
      });
      problems.push(hints.length ? hints[0][2] : format(kind.otherwise, {key: kind.key, k: k, got: fmt(got[k])}));
    });
    return problems;
  }

  function judge(kind, answer) {
    try {
      if (kind.kind === "number") { return judgeNumber(kind, answer); }
      if (kind.kind === "values") { return judgeValues(kind, answer); }
      if (kind.kind === "words") { return judgeWords(kind, answer); }
      if (kind.kind === "mapping") { return judgeMapping(kind, answer); }
      if (kind.kind === "fields") {
        var problems = [];
        kind.parts.forEach(function (part, i) {
          judge(part[1], answer[i]).forEach(function (p) { problems.push(part[0] + ": " + p); });
        });
        return problems;
      }
    } catch (error) {
      if (error instanceof Unreadable) { return [error.message]; }
      throw error;
    }
    throw new Error("unknown answer kind " + kind.kind);
  }

  // ------------------------------------------------------------------ reading what was typed

  function parseNumber(text, booleans) {
    var t = text.trim().replace(/_/g, "");
    if (booleans && /^(true|false)$/i.test(t)) { return /^true$/i.test(t) ? 1 : 0; }
    if (/^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$/.test(t)) { t = t.replace(/,/g, ""); }
    if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) {
      throw new Unreadable("'" + text.trim() + "' is not " + (booleans
        ? "True or False; type True or False (or 1 or 0)." : "a number; type digits, e.g. 0.25 or 1e-3."));
    }
    return Number(t);
  }

  function parseRow(text, booleans) {
    return text.split(/[\s,]+/).filter(function (s) { return s.length; })
      .map(function (s) { return parseNumber(s, booleans); });
  }

  function parseText(kind, text) {
    if (!text.trim()) { throw new Unreadable("type an answer in the box first."); }
    if (kind.kind === "number") { return parseNumber(text, false); }
    if (kind.kind === "values") {
      var cleaned = text.replace(/\]\s*,\s*\[/g, ";").replace(/[[\](){}]/g, " ");
      var rows = cleaned.split(/[;\n]/).filter(function (row) { return row.trim().length; });
      var parsed = rows.map(function (row) { return parseRow(row, kind.booleans); });
      return shapeOf(kind.expected).length === 1 || parsed.length === 1
        ? [].concat.apply([], parsed) : parsed;
    }
    if (kind.kind === "words") {
      return text.replace(/[[\](){}]/g, " ").split(/[,;]/)
        .map(function (w) { return w.trim().replace(/^["']|["']$/g, "").trim(); })
        .filter(function (w) { return w.length; });
    }
    if (kind.kind === "mapping") {
      var mapping = {};
      text.replace(/[{}]/g, " ").split(/[,;]/).filter(function (s) { return s.trim().length; })
        .forEach(function (item) {
          var pair = item.split(":");
          if (pair.length !== 2 || !/^\s*[+-]?\d+\s*$/.test(pair[0])) {
            throw new Unreadable("'" + item.trim() + "' is not a " + kind.key + ": value pair, e.g. 5: 1.0.");
          }
          mapping[parseInt(pair[0], 10)] = parseNumber(pair[1], false);
        });
      return mapping;
    }
    throw new Error("unknown answer kind " + kind.kind);
  }

  // ------------------------------------------------------------------ the forms

  function escapeHtml(text) {
    return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function rich(text) { return escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>"); }

  function verdictHtml(problems, success) {
    if (!problems.length) { return "<p><strong>Correct!</strong> " + rich(success) + "</p>"; }
    return "<p><strong>Not yet.</strong></p><ul>"
      + problems.map(function (p) { return "<li>" + rich(p) + "</li>"; }).join("") + "</ul>";
  }

  function checkForm(form, data) {
    var kind = data.answer;
    var parts = kind.kind === "fields" ? kind.parts.map(function (p) { return p[1]; }) : [kind];
    var inputs = form.querySelectorAll("input");
    var problems = [], values = [];
    parts.forEach(function (part, i) {
      try {
        values.push(parseText(part, inputs[i].value));
      } catch (error) {
        if (!(error instanceof Unreadable)) { throw error; }
        values.push(undefined);
        problems.push((kind.kind === "fields" ? kind.parts[i][0] + ": " : "") + error.message);
      }
    });
    if (!problems.length) {
      problems = judge(kind, kind.kind === "fields" ? values : values[0]);
    }
    var feedback = form.querySelector(".course-self-check-feedback");
    feedback.innerHTML = verdictHtml(problems, data.success);
    form.classList.toggle("course-self-check-correct", !problems.length);
    form.classList.toggle("course-self-check-wrong", problems.length > 0);
  }

  function setUp(form) {
    var script = form.querySelector("script.course-self-check-data");
    if (!script || form.dataset.ready) { return; }
    var data = JSON.parse(script.textContent);
    form.dataset.ready = "1";
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      checkForm(form, data);
    });
  }

  function setUpAll() { document.querySelectorAll("form.course-self-check").forEach(setUp); }

  window.courseSelfCheck = {judge: judge};  // for the tests, which hold it to the Python judge
  setUpAll();  // deferred, as every script of the site (or added to a loaded page): the page is parsed
})();
