/**
 * Builds the web app (client/web) into client/web/dist, which the hub serves
 * at `/`. Hashed file names under assets/ let the hub cache them for a year.
 */
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  base: "/",
  plugins: [react()],
  // The SDK loads its Node socket adapter (and `ws`) lazily, only in Node: never in this bundle.
  resolve: { alias: { ws: fileURLToPath(new URL("./src/no-ws.ts", import.meta.url)) } },
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", sourcemap: false, reportCompressedSize: false },
  logLevel: "warn",
});
