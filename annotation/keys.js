/* Keys that never drop a grade or an answer, in every project of the server (the review's and
   the audit's alike). annotation/ls_launch.py adds this script to each page Label Studio 1.23.2
   serves; it reads the labeling interface's own store (window.Htx) and changes three things:

   1. A label key pressed right after a move (Alt+. selects the next region) labels the region the
      move landed on. Label Studio brings its label buttons up to date with the selected region a
      moment after the move (a debounced update); a key pressed before that toggled the previous
      region's button instead, and a passage was left at "?". The update is made at once here,
      before Label Studio handles the key.
   2. A key of a single-choice answer sets that answer and never clears it: pressing it again
      keeps it (Label Studio toggles it off, so a second press cleared an answer).
   3. Ctrl+Enter (Cmd+Enter on a Mac) submits from a text box too, as everywhere else on the task.
      Label Studio ignores its hotkeys while a text box has the focus; the text typed there is
      saved with the annotation on submit. */
(function () {
  "use strict";

  function annotation() {
    var store = window.Htx;
    return store && store.annotationStore ? store.annotationStore.selected : null;
  }

  function inTextBox(target) {
    return !!target && (/^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) || target.isContentEditable);
  }

  function controls(current, type) {
    var found = [];
    current.names.forEach(function (control) {
      if (control.type === type) found.push(control);
    });
    return found;
  }

  // the choice of a single-choice question (not one per region) that this key selects
  function choiceOf(current, key) {
    var choices = controls(current, "choices");
    for (var i = 0; i < choices.length; i++) {
      var control = choices[i];
      if (!control.shouldBeUnselected || control.perregion) continue;
      var children = control.tiedChildren || [];
      for (var j = 0; j < children.length; j++) {
        var hotkey = children[j].hotkey;
        if (hotkey && hotkey.toLowerCase() === key) return children[j];
      }
    }
    return null;
  }

  function submitButton() {
    return document.querySelector(
      '[data-testid="bottombar-submit-button"]:not([disabled]), [data-testid="bottombar-update-button"]:not([disabled])');
  }

  window.addEventListener("keydown", function (event) {
    var current = annotation();
    if (!current || event.isComposing) return;
    var command = event.ctrlKey || event.metaKey;
    if (inTextBox(event.target)) {
      if (command && event.key === "Enter" && event.target.closest("[class*='lsf-']")) {
        var button = submitButton();
        if (button) {
          event.preventDefault();
          event.stopPropagation();
          button.click();
        }
      }
      return;
    }
    var selection = current.regionStore && current.regionStore.selection;
    if (selection && selection.size > 0) {
      selection._updateResultsFromSelection();  // (1) the label buttons of the region selected now
    }
    if (command || event.altKey || event.key.length !== 1) return;
    var choice = choiceOf(current, event.key.toLowerCase());
    if (choice && choice.sel) {  // (2) already the answer: keep it
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);
})();
