import { defineConfig } from "vite";

// The package's browser entry instantiates its .wasm with a top-level `await`, so the
// build targets esnext; `replicore` is a workspace link, served as it is (not pre-bundled).
export default defineConfig({
  base: "./",
  build: { target: "esnext", outDir: "dist", emptyOutDir: true },
  optimizeDeps: { exclude: ["replicore"], esbuildOptions: { target: "esnext" } },
  server: { host: "127.0.0.1" },
  preview: { host: "127.0.0.1" },
});
