/** Entry point: takes a token handed over by a sign-in link, then mounts the app. */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app.tsx";
import { adoptTokenFromUrl } from "./session.ts";
import "./styles.css";

adoptTokenFromUrl();
const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
