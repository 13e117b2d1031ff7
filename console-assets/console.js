// The console's one script (served from its own origin; the CSP allows no inline script): draws
// the overview's charts with uPlot from their JSON route, asks before a form marked data-confirm
// is sent, redraws the charts when htmx refreshes a region, and says when a refresh finds the
// session ended.
(function () {
  'use strict';

  // Times in the console are UTC, 24-hour, as in its tables: the charts' axis says so, and their
  // legend holds the series' names only (a live legend showed "Time: --" until hovered).
  function utcTime(seconds) { return new Date(seconds * 1000).toISOString().slice(11, 16); }
  var timeAxis = { label: 'UTC', values: function (u, splits) { return splits.map(utcTime); } };
  var timeSeries = { label: 'UTC', value: function (u, v) { return v == null ? '' : utcTime(v); } };

  function drawChart(el) {
    if (typeof uPlot === 'undefined' || el.dataset.drawn === '1') return;
    el.dataset.drawn = '1';
    fetch(el.dataset.src, { credentials: 'same-origin' })
      .then(function (r) { return r.json(); })
      .then(function (d) {
        var width = Math.max(280, el.clientWidth || 480);
        var options;
        var data;
        if (el.dataset.chart === 'failure-rate') {
          var rate = d.failed.map(function (f, i) { var all = f + d.completed[i]; return all === 0 ? null : (100 * f) / all; });
          options = { width: width, height: 200, legend: { live: false }, series: [timeSeries, { label: 'failure rate %', stroke: '#b3261e', width: 2 }], axes: [timeAxis, { label: '%' }], scales: { y: { range: [0, 100] } } };
          data = [d.at, rate];
        } else {
          options = { width: width, height: 200, legend: { live: false }, series: [timeSeries, { label: 'completed', stroke: '#1b6e3a', width: 2 }, { label: 'failed', stroke: '#b3261e', width: 2 }], axes: [timeAxis, { label: 'jobs / 5 min' }] };
          data = [d.at, d.completed, d.failed];
        }
        el.textContent = '';
        new uPlot(options, data, el);
      })
      .catch(function () { el.textContent = 'The chart could not be loaded.'; });
  }

  function drawCharts() {
    document.querySelectorAll('[data-chart]').forEach(drawChart);
  }

  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) event.preventDefault();
  });
  // A region does not refresh while someone types in one of its fields (a schedule's pause note).
  document.addEventListener('htmx:beforeRequest', function (event) {
    var active = document.activeElement;
    var region = event.detail && event.detail.elt;
    if (region && active && region.contains(active) && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName)) event.preventDefault();
  });
  // A refresh refused for want of a session (signed out, expired, the console restarted): every
  // refreshing region says so, offers sign-in and stops refreshing (htmx stops polling a region
  // that has left the page), instead of going on saying it refreshes.
  document.addEventListener('htmx:responseError', function (event) {
    var xhr = event.detail && event.detail.xhr;
    if (!xhr || xhr.status !== 401) return;
    var next = encodeURIComponent(window.location.pathname + window.location.search);
    document.querySelectorAll('[hx-trigger^="every"]').forEach(function (region) {
      var ended = document.createElement('div');
      ended.id = region.id;
      ended.className = 'session-ended';
      var notice = document.createElement('p');
      notice.className = 'notice error';
      notice.setAttribute('role', 'alert');
      notice.append('Your session has ended: this page no longer refreshes. ');
      var link = document.createElement('a');
      link.href = '/login?next=' + next;
      link.textContent = 'Sign in again';
      notice.append(link);
      ended.append(notice);
      region.replaceWith(ended);
    });
  });
  document.addEventListener('DOMContentLoaded', drawCharts);
  document.addEventListener('htmx:afterSwap', drawCharts);
  // Charts refresh with the page's data every 30 s.
  setInterval(function () {
    document.querySelectorAll('[data-chart]').forEach(function (el) { el.dataset.drawn = ''; });
    drawCharts();
  }, 30000);
})();
