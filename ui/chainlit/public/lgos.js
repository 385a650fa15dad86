// LGOS chat UI script, loaded by .chainlit/config.toml (custom_js).
//
// - Loads login-hint.js (the demo login under the sign-in form).
// - The "Edit plan" (or "Type another answer") button of a question puts the
//   cursor in the message box, where the answer is typed
//   (lgos_chainlit.questions).
(() => {
  const hint = document.createElement("script");
  hint.src = "/public/login-hint.js";
  document.head.appendChild(hint);

  document.addEventListener("click", (event) => {
    const button =
      event.target instanceof Element
        ? event.target.closest('button[id^="lgos-write-"]')
        : null;
    if (!button) return;
    // After Chainlit has handled the click (the button keeps the focus).
    setTimeout(() => document.getElementById("chat-input")?.focus(), 50);
  });
})();
