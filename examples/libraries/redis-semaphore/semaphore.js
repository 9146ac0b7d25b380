// redis-semaphore's Semaphore (a sorted set scored by the clients' own
// clocks), unmodified, with its refresh timer on: one client of a lockstep
// scenario, on ioredis. The version is the argument (5.8.0 installed here).
//
// The client acquires a slot of a Semaphore of one (its acquire script,
// retried every retry_delay until ACQUIRE_TIMEOUT_MS), enters, and works
// WORK_MS in steps of a millisecond while the Semaphore refreshes its entry
// every REFRESH_MS (default: the library's own, 0.8 of the ttl). It stops
// working when the Semaphore calls onLockLost, as the library's README asks
// of a holder; otherwise it leaves and releases. A refresh the Semaphore
// counts as a success is said to lockstep as a renewal, valid as far as
// the entry's new score makes it (below).
'use strict';

const path = require('path');
const Redis = require('ioredis');
const {Lockstep, redisUrls, settings} =
    require(path.join(__dirname, '../../real-clients/lockstep_client'));

const version = process.argv[2];
const {Semaphore} = require('redis-semaphore-' + version);

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function main() {
  const s = settings();
  // The calls to lockstep on a connection of their own, opened first, so
  // that a renewal is said as the refresh's reply comes (mutex_refresh.js).
  const sayOn = new Redis(redisUrls()[0]);
  await sayOn.ping();
  const say = new Lockstep(sayOn);
  const redis = new Redis(redisUrls()[0]);
  let lost = false;
  const options = {
    lockTimeout: s.ttl,
    retryInterval: s.retry_delay,
    acquireTimeout: Number(process.env.ACQUIRE_TIMEOUT_MS || '3'),
    onLockLost: () => {
      lost = true;
    },
  };
  if (process.env.REFRESH_MS) options.refreshInterval = Number(process.env.REFRESH_MS);
  // The clock the Semaphore put into its last acquire or refresh script
  // (ARGV[4], the entry's score), read off the call, which goes on as it is.
  let score = null;
  for (const method of ['evalsha', 'eval']) {
    const call = redis[method].bind(redis);
    redis[method] = (script, numkeys, ...args) => {
      if (args.length === 5) score = Number(args[4]);
      return call(script, numkeys, ...args);
    };
  }
  // Another client's acquire removes entries scored at or before its clock
  // less lockTimeout (ZREMRANGEBYSCORE -inf now-lockTimeout), so by a clock
  // like this client's the slot is its through score + lockTimeout - 1.
  const validUntil = () => score + s.ttl - 1;
  const semaphore = new Semaphore(redis, s.key, 1, options);
  const refresh = semaphore._refresh.bind(semaphore);
  semaphore._refresh = async () => {
    const refreshed = await refresh();
    if (refreshed) await say.renew(validUntil());
    return refreshed;
  };
  if (!(await semaphore.tryAcquire())) {
    await say.because('gave up: acquireTimeout passed');
    redis.disconnect();
    sayOn.disconnect();
    return;
  }
  await say.enter(validUntil());
  const work = Number(process.env.WORK_MS || '2');
  for (let t = 0; t < work && !lost; ++t) await delay(1);
  if (lost) {
    await say.because('onLockLost: the refresh found the entry gone');
    await say.leave();
    await say.released();
  } else {
    await say.leave();
    await semaphore.release();
    await say.released();
  }
  redis.disconnect();
  sayOn.disconnect();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
