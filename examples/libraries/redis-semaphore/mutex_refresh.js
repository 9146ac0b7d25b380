// redis-semaphore's Mutex, unmodified, with its refresh timer on (every
// REFRESH_MS, by default 1): one client of a lockstep scenario, on ioredis
// (holder.js). The version is the argument (5.3.0, 5.3.1 or 5.8.0, each
// installed here under an npm alias).
//
// The Mutex's lease is the server's: its SET NX PX, or the PEXPIRE of a
// refresh, runs out ttl after the step that sent it, which is the clock
// the holder read just before (max_arg_delay 0).
'use strict';

const {runHolder} = require('./holder');

const {Mutex} = require('redis-semaphore-' + process.argv[2]);

runHolder({
  lock: (redis, options, s) => new Mutex(redis, s.key, options),
  refreshMs: '1',
  validUntil: (redis, s) => (clock) => clock + s.ttl,
  lostText: 'onLockLost: the refresh found the lock gone',
}).catch((e) => {
  console.error(e);
  process.exit(1);
});
