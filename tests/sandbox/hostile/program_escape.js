// Hostile (JavaScript): what a node bot tries from inside the strong tier. Each decide names an
// attack in "mode" and gets back what happened; the test says what must have happened.
'use strict';
const fs = require('fs');
const readline = require('readline');

function attempt(fn) {
  try { return 'ok:' + String(fn()).slice(0, 200); } catch (e) { return 'error:' + (e.code || e.name || String(e)).slice(0, 80); }
}

function escape(message, reply) {
  const child = require('child_process');
  const net = require('net');
  const said = {
    spawn: attempt(() => { const r = child.spawnSync(process.execPath, ['-e', '1']); if (r.error) throw r.error; return 'ran'; }),
    exec: attempt(() => child.execFileSync(process.execPath, ['-e', 'console.log(1)'])),
    write: attempt(() => fs.writeFileSync('/left-behind', 'x')),
    passwd: attempt(() => fs.readFileSync('/etc/passwd', 'utf8')),
    referee: attempt(() => fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).join(',')),
    env: JSON.stringify(process.env),
    kill_pid_1: attempt(() => process.kill(1, 'SIGKILL')),
  };
  const socket = net.connect({ host: '127.0.0.1', port: message.port || 9 });  // refused or not: said later
  socket.on('connect', () => { said.socket = 'connected'; });
  socket.on('error', (e) => { said.socket = 'error:' + e.code; });
  setTimeout(() => reply(said), 300);
}

function burn(message, reply) {  // worker threads spinning side by side: more CPU than wall time
  const { Worker } = require('worker_threads');
  let running = message.threads;
  const spin = `const end = Date.now() + ${message.ms}; while (Date.now() < end) {}`;
  if (running === 0) { eval(spin); reply({ threads: 0 }); return; }
  for (let i = 0; i < message.threads; i++) {
    new Worker(spin, { eval: true }).on('exit', () => { if (--running === 0) reply({ threads: message.threads }); });
  }
}

function threads(message) {  // as many threads as it can get
  const { Worker } = require('worker_threads');
  let made = 0, error = '';
  try {
    for (let i = 0; i < message.count; i++) {
      const w = new Worker('setTimeout(() => {}, 100000)', { eval: true });
      w.on('error', (e) => { error = error || String(e.code || e); });
      made++;
    }
  } catch (e) { error = String(e.code || e); }
  return { made, error };
}

function hog(message) {  // touch memory until refused; report how much it got
  const held = [];
  let mb = 0;
  try {
    while (mb < message.mb) { const b = Buffer.alloc(16 << 20, 1); held.push(b); mb += 16; }
  } catch (e) { return { mb, error: String(e.code || e.name) }; }
  return { mb };
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on('line', (line) => {
  const message = JSON.parse(line);
  const reply = (result) => process.stdout.write(JSON.stringify(result) + '\n');
  const mode = message.mode;
  if (mode === 'threads') {  // workers start asynchronously: let them try before answering
    const result = threads(message);
    setTimeout(() => reply(result), 500);
  } else if (mode === 'pid') {  // the pids its threads take would tell the next game of its fork server
    const { Worker } = require('worker_threads');
    let running = message.threads;
    const pid = process.pid;
    if (running === 0) { reply({ pid }); return; }
    for (let i = 0; i < message.threads; i++) {
      new Worker('1', { eval: true }).on('exit', () => { if (--running === 0) reply({ pid }); });
    }
  } else if (mode === 'escape') {
    escape(message, reply);
  } else if (mode === 'burn') {
    burn(message, reply);
  } else {
    reply(mode === 'hog' ? hog(message) : {});
  }
});
