// A Bohnanza bot in JavaScript (node), written from docs/protocol.md alone: one JSON object per
// line in, one per line out. It takes the first legal option the referee lists, skipping harvests
// and field purchases when it can (for every decision kind the first option is then a planting,
// ending trading or passing), so it never trades.
//
//   arena play docs/examples/first_option_bot.js greedy greedy     (in the strong sandbox)
//   arena submit docs/examples/first_option_bot.js                  (onto the ladder)
'use strict';
const readline = require('readline');

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on('line', (line) => {
  const message = JSON.parse(line);
  if (message.type === 'hello') {
    process.stdout.write(JSON.stringify({ type: 'ready' }) + '\n');
  } else if (message.type === 'decide') {
    const options = message.options;
    const choice = options.find((o) => o.type !== 'harvest' && o.type !== 'buy_field') || options[0];
    process.stdout.write(JSON.stringify({ id: message.id, action: choice }) + '\n');
  }
  // 'end' needs no answer; the process is ended after it
});
