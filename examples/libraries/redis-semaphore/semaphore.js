// redis-semaphore's Semaphore of one (a sorted set scored by the clients'
// own clocks), unmodified, with its refresh timer on (by default the
// library's own, 0.8 of the ttl): one client of a lockstep scenario, on
// ioredis (holder.js). The version is the argument (5.8.0 installed here).
//
// Another client's acquire removes the entries scored at or before its
// clock less lockTimeout (ZREMRANGEBYSCORE -inf now-lockTimeout), so by a
// clock like this client's its slot is its through the entry's score +
// lockTimeout - 1. The score is the clock the Semaphore put into its last
// acquire or refresh script (ARGV[4]), read off the call, which goes on as
// it is.
'use strict';

const {runHolder} = require('./holder');

const {Semaphore} = require('redis-semaphore-' + process.argv[2]);

runHolder({
  lock: (redis, options, s) => new Semaphore(redis, s.key, 1, options),
  refreshMs: undefined,
  validUntil: (redis, s) => {
    let score = null;
    for (const method of ['evalsha', 'eval']) {
      const call = redis[method].bind(redis);
      redis[method] = (script, numkeys, ...args) => {
        if (args.length === 5) score = Number(args[4]);
        return call(script, numkeys, ...args);
      };
    }
    return () => score + s.ttl - 1;
  },
  lostText: 'onLockLost: the refresh found the entry gone',
}).catch((e) => {
  console.error(e);
  process.exit(1);
});
