// The workspace's keys (the one script, served from this server; the CSP allows no other, nor any inline
// script): j / ArrowRight next student, k / ArrowLeft previous, n next needing a look, m next for me (the split
// among the TAs); on a submission, 1-9 and 0 apply (or take off) the rubric item with that key of the exercise
// being looked at: the section nearest the top of the window that has items (the first one at the top of the
// page).  Keys typed in a form field stay there.
"use strict";
function currentItems() {
  var all = Array.prototype.slice.call(document.querySelectorAll("section.ex"));
  var withItems = all.filter(function (s) { return s.querySelector(".items"); });
  var line = window.innerHeight * 0.4, pick = withItems[0] || null;
  withItems.forEach(function (s) { if (s.getBoundingClientRect().top <= line) pick = s; });
  return pick;
}
function markCurrent() {
  var pick = currentItems();
  Array.prototype.forEach.call(document.querySelectorAll("section.ex.current"), function (s) {
    if (s !== pick) s.classList.remove("current");
  });
  if (pick) pick.classList.add("current");
}
document.addEventListener("scroll", markCurrent, {passive: true});
document.addEventListener("DOMContentLoaded", markCurrent);
document.addEventListener("keydown", function (e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  var t = e.target;
  if (t && (t.isContentEditable || /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(t.tagName))) return;
  if (/^[0-9]$/.test(e.key)) {
    var section = currentItems();
    var button = section && section.querySelector('button[data-key="' + e.key + '"]');
    if (button) {
      e.preventDefault();
      button.click();
    }
    return;
  }
  var target = {j: "nav-next", ArrowRight: "nav-next", k: "nav-prev", ArrowLeft: "nav-prev", n: "nav-look", m: "nav-mine"}[e.key];
  var link = target && document.getElementById(target);
  if (link) {
    e.preventDefault();
    window.location.assign(link.href);
  }
});
