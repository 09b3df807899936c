// Runs a Python file (or -m module, or -c code) on CPython 3.14 compiled to WebAssembly
// (the npm package pyodide), with the host's folders mounted at their own paths, and
// exits with the script's exit status. Called by ./python3.14 (which installs pyodide
// into a cache folder first); see README.md here.
//
//   node run.mjs PYODIDE_DIR [-m module | -c code | file.py] [args...]
//
// PYTHONPATH (host paths, ':'-separated) goes to the front of sys.path; the current
// folder is the script's working folder. Every host folder that sys.path, the working
// folder, the script, /tmp or DEPYF_PYODIDE_MOUNTS names is mounted (its top-level folder,
// once), so paths printed by Python are host paths. Pyodide has no subprocesses and no signals.
import path from "node:path";
import fs from "node:fs";
import { pathToFileURL } from "node:url";

const [pyodideDir, ...argv] = process.argv.slice(2);
if (!pyodideDir || argv.length === 0) {
  process.stderr.write("usage: node run.mjs PYODIDE_DIR [-m module | -c code | file.py] [args...]\n");
  process.exit(2);
}
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);

const cwd = process.cwd();
const pythonPath = (process.env.PYTHONPATH || "").split(":").filter(Boolean).map((p) => path.resolve(p));
const extra = (process.env.DEPYF_PYODIDE_MOUNTS || "").split(":").filter(Boolean).map((p) => path.resolve(p));

// The top-level host folder of each path: mounting /work covers /work/a and /work/b.
// The emulated file system keeps its own /lib, /home and /dev (host /tmp is mounted).
const reserved = new Set(["/", "/lib", "/home", "/dev", "/proc"]);
const roots = new Set();
const script = argv[0] === "-m" || argv[0] === "-c" ? [] : [path.resolve(argv[0])];
for (const p of [cwd, "/tmp", ...script, ...pythonPath, ...extra]) {
  const top = "/" + p.split("/").filter(Boolean)[0];
  if (!reserved.has(top) && fs.existsSync(top)) roots.add(top);
}

const env = {};
for (const [k, v] of Object.entries(process.env)) {
  if (k.startsWith("DEPYF_") || k.startsWith("PYTEST_") || k === "PYTHONHASHSEED" || k === "NO_COLOR" || k === "COLUMNS") env[k] = v;
}
env.HOME = "/home/pyodide";

const py = await loadPyodide({ env });
const writer = (stream) => ({ write: (buf) => { stream.write(buf); return buf.length; } });
py.setStdout(writer(process.stdout));
py.setStderr(writer(process.stderr));
for (const root of roots) {
  py.FS.mkdirTree(root);
  py.FS.mount(py.FS.filesystems.NODEFS, { root }, root);
}
py.globals.set("_host_cwd", cwd);
py.globals.set("_host_path", py.toPy(pythonPath));
py.globals.set("_host_argv", py.toPy(argv));
py.runPython(`
def _launch():
    import os, runpy, sys, traceback
    os.chdir(_host_cwd)
    args = list(_host_argv)
    sys.path[:0] = list(_host_path)
    try:
        if args[0] == "-m":
            sys.argv = [args[1]] + args[2:]
            sys.path.insert(0, _host_cwd)
            runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        elif args[0] == "-c":
            sys.argv = ["-c"] + args[2:]
            sys.path.insert(0, "")
            exec(compile(args[1], "<string>", "exec"), {"__name__": "__main__"})
        else:
            sys.argv = args
            sys.path.insert(0, os.path.dirname(os.path.abspath(args[0])))
            runpy.run_path(args[0], run_name="__main__")
    except SystemExit as exc:
        code = exc.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return 0
`);
// Called "promising" so that asyncio.run() inside works: with node's WebAssembly stack
// switching (the flag python3.14 passes), a synchronous Python call may wait on a promise.
const launch = py.globals.get("_launch");
const status = launch.callPromising ? await launch.callPromising() : launch();
process.exitCode = status;
