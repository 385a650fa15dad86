// Shows the demo login under the sign-in form's title (see app.py, login_hint).
(() => {
  const HINT_ID = "lgos-login-hint";
  let hint = null;

  const place = () => {
    const password = document.querySelector('input[type="password"]');
    if (!password || !hint || document.getElementById(HINT_ID)) return;
    const form = password.closest("form");
    if (!form) return;
    const note = document.createElement("p");
    note.id = HINT_ID;
    note.className = "text-sm text-muted-foreground text-center";
    note.style.marginTop = "1rem";
    note.textContent = hint;
    form.after(note);
  };

  fetch("/lgos/login-hint")
    .then((response) => (response.ok ? response.json() : null))
    .then((data) => {
      if (!data || !data.user) return;
      hint = data.password
        ? `Demo login: user “${data.user}”, password “${data.password}”.`
        : `Demo login: user “${data.user}”; the password is DEMO_CHAINLIT_DEMO_PASSWORD.`;
      place();
      new MutationObserver(place).observe(document.body, {
        childList: true,
        subtree: true,
      });
    })
    .catch(() => {});
})();
