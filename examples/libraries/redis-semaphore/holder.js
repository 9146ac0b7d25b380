// What a holder of a redis-semaphore lock does in these scenarios, one
// client of a lockstep scenario on ioredis; mutex_refresh.js and
// semaphore.js say which lock and how long the holder believes it valid.
//
// The client acquires (the library's own retries, every retry_delay until
// ACQUIRE_TIMEOUT_MS), enters, and works WORK_MS in steps of a millisecond
// while the library refreshes its lease every REFRESH_MS (its
// setInterval). It stops working when the library calls onLockLost, as its
// README asks of a holder; otherwise it leaves and releases. A refresh the
// library counts as a success is said to lockstep as a renewal
// (`lockstep:renew`): the program watches the library's own refresh, it
// does not change it.
'use strict';

const path = require('path');
const Redis = require('ioredis');
const {Lockstep, redisUrls, settings} =
    require(path.join(__dirname, '../../real-clients/lockstep_client'));

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs the holder. `lock(redis, options, s)` makes the library's lock on
 * the client's connection, with the scenario's lock settings `s`; `refreshMs` is the refresh interval without
 * REFRESH_MS (undefined: the library's own); `validUntil(redis, s)` gives
 * a function of the clock a refresh was sent at, called on entering (with
 * the clock then) and after each refresh, that says until when the holder
 * believes the lock its own; `lostText` is its reason once onLockLost came.
 */
async function runHolder({lock, refreshMs, validUntil, lostText}) {
  const s = settings();
  // The calls to lockstep on a connection of their own, opened first: a
  // renewal is said as soon as the refresh's reply comes, never behind a
  // command the library sent meanwhile on its connection (the release).
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
  const refresh = process.env.REFRESH_MS || refreshMs;
  if (refresh !== undefined) options.refreshInterval = Number(refresh);
  const valid = validUntil(redis, s);
  const held = lock(redis, options, s);
  const ownRefresh = held._refresh.bind(held);
  held._refresh = async () => {
    const sent = Date.now();
    const refreshed = await ownRefresh();
    if (refreshed) await say.renew(valid(sent));
    return refreshed;
  };
  if (!(await held.tryAcquire())) {
    await say.because('gave up: acquireTimeout passed');
  } else {
    await say.enter(valid(Date.now()));
    const work = Number(process.env.WORK_MS || '2');
    for (let t = 0; t < work && !lost; ++t) await delay(1);
    if (lost) {
      await say.because(lostText);
      await say.leave();
      await say.released();
    } else {
      await say.leave();
      await held.release();
      await say.released();
    }
  }
  redis.disconnect();
  sayOn.disconnect();
}

module.exports = {runHolder};
