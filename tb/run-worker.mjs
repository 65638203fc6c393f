// The I/O thread of runModel (tb/run.ts), plain JavaScript so that it starts the same way under
// tsx, vitest and node. It owns the harness child process:
//   - frames: the main thread writes them into a ring in a SharedArrayBuffer and blocks when the
//     ring is full; this thread copies them out as blocks (u32 count + frames) onto the child's
//     stdin, waiting for 'drain' (back-pressure), then the end marker (u32 0) once the main thread
//     has closed the ring;
//   - responses: every stdout chunk goes to the main thread as a message, where it is parsed;
//   - at the end: one 'exit' message with the status, the signal and the stderr text.
// Control words (Int32 in the SharedArrayBuffer) are listed in run.ts (CTRL_*).
import { spawn } from 'node:child_process';
import { parentPort, workerData } from 'node:worker_threads';

const W = 0; // frames written by the main thread (uint32, wrapping)
const R = 1; // frames taken by this thread (uint32, wrapping)
const CLOSED = 2; // 1 once the main thread wrote its last frame
const ABORT = 3; // 1 once the child stopped reading (exited, crashed, or killed)
const WBELL = 4; // bumped by the main thread on every publish and on close; this thread waits on it
const RBELL = 5; // bumped by this thread when R advances or on abort; the main thread waits on it

const { binary, args, header, sab, ctrlBytes, frameBytes, capacity, chunkFrames } = workerData;
const ctrl = new Int32Array(sab, 0, ctrlBytes / 4);
const ring = new Uint8Array(sab, ctrlBytes, capacity * frameBytes);
const port = parentPort;

const STDERR_KEEP = 256 * 1024;
let stderrHead = '';
let stderrTail = '';
let stderrDropped = 0;
let aborted = false;
let posted = false;
let pumpError;

function abort() {
  if (aborted) return;
  aborted = true;
  Atomics.store(ctrl, ABORT, 1);
  Atomics.add(ctrl, RBELL, 1);
  Atomics.notify(ctrl, RBELL);
}

function postExit(code, signal, spawnError) {
  if (posted) return;
  posted = true;
  abort();
  const stderr = stderrDropped > 0 ? `${stderrHead}\n... (${stderrDropped} characters of stderr left out) ...\n${stderrTail}` : stderrHead + stderrTail;
  port.postMessage({ type: 'exit', code, signal, stderr, spawnError, pumpError });
}

const child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
child.on('error', (e) => {
  if (child.pid === undefined) postExit(null, null, e.message);
});
child.stdout.on('data', (chunk) => {
  const copy = new Uint8Array(chunk);
  port.postMessage({ type: 'out', data: copy }, [copy.buffer]);
});
child.stderr.setEncoding('utf8');
child.stderr.on('data', (text) => {
  if (stderrHead.length < STDERR_KEEP) {
    stderrHead += text;
    return;
  }
  stderrTail += text;
  if (stderrTail.length > STDERR_KEEP) {
    stderrDropped += stderrTail.length - STDERR_KEEP;
    stderrTail = stderrTail.slice(-STDERR_KEEP);
  }
});
child.stdin.on('error', () => abort()); // EPIPE: the harness stopped reading; its exit status tells why
child.on('close', (code, signal) => postExit(code, signal, undefined));
port.on('message', (m) => {
  if (m.type === 'kill') {
    abort();
    child.kill('SIGKILL');
  }
});

function write(buf) {
  if (aborted) return Promise.resolve(false);
  if (child.stdin.write(buf)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok) => {
      child.stdin.off('drain', onDrain);
      child.stdin.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    child.stdin.on('drain', onDrain);
    child.stdin.on('close', onClose);
  });
}

async function pump() {
  if (!(await write(Buffer.from(header)))) return;
  let read = 0;
  let slot = 0;
  for (;;) {
    if (aborted) return;
    const bell = Atomics.load(ctrl, WBELL);
    const closed = Atomics.load(ctrl, CLOSED) !== 0;
    const avail = (Atomics.load(ctrl, W) - read) >>> 0;
    if (avail === 0) {
      if (closed) {
        await write(Buffer.alloc(4)); // end marker
        if (!aborted) child.stdin.end();
        return;
      }
      const w = Atomics.waitAsync(ctrl, WBELL, bell, 1000);
      if (w.async) await w.value;
      continue;
    }
    const n = Math.min(avail, capacity - slot, chunkFrames);
    const block = Buffer.allocUnsafe(4 + n * frameBytes);
    block.writeUInt32LE(n, 0);
    if (frameBytes > 0) block.set(ring.subarray(slot * frameBytes, (slot + n) * frameBytes), 4);
    slot += n;
    if (slot === capacity) slot = 0;
    read = (read + n) >>> 0;
    Atomics.store(ctrl, R, read | 0);
    Atomics.add(ctrl, RBELL, 1);
    Atomics.notify(ctrl, RBELL);
    if (!(await write(block))) return;
  }
}

pump().catch((e) => {
  pumpError = String(e && e.stack ? e.stack : e);
  abort();
  child.kill('SIGKILL');
});
