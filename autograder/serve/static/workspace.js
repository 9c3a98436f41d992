// The workspace's keys (the one script, served from this server; the CSP allows no other, nor any inline
// script): j / ArrowRight next student, k / ArrowLeft previous, n next needing a look,
// m next for me (the split among the TAs).  Keys typed in a form
// field stay there.
"use strict";
document.addEventListener("keydown", function (e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  var t = e.target;
  if (t && (t.isContentEditable || /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(t.tagName))) return;
  var target = {j: "nav-next", ArrowRight: "nav-next", k: "nav-prev", ArrowLeft: "nav-prev", n: "nav-look", m: "nav-mine"}[e.key];
  var link = target && document.getElementById(target);
  if (link) {
    e.preventDefault();
    window.location.assign(link.href);
  }
});
