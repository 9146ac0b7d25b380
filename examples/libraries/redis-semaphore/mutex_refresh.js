// redis-semaphore's Mutex, unmodified, with its refresh timer on: one
// client of a lockstep scenario, on ioredis. The version is the argument
// (5.3.0 or 5.3.1, both installed here under npm aliases).
//
// The client acquires (SET NX PX, retried every retry_delay until
// ACQUIRE_TIMEOUT_MS), enters, and works WORK_MS in steps of a
// millisecond while the Mutex refreshes its lease every REFRESH_MS (its
// setInterval). It stops working when the Mutex calls onLockLost, as the
// library's README asks of a holder; otherwise it leaves and releases.
// A refresh the Mutex counts as a success is said to lockstep as a
// renewal (`lockstep:renew`), valid for ttl from when it was sent:
// the program watches the Mutex's own refresh, it does not change it.
'use strict';

const path = require('path');
const Redis = require('ioredis');
const {Lockstep, nowMs, redisUrls, settings} =
    require(path.join(__dirname, '../../real-clients/lockstep_client'));

const version = process.argv[2];
const {Mutex} = require('redis-semaphore-' + version);

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function main() {
  const s = settings();
  // The calls to lockstep on a connection of their own, opened first: a
  // renewal is said as soon as the refresh's reply comes, never behind a
  // command the Mutex sent meanwhile on its connection (the release).
  const sayOn = new Redis(redisUrls()[0]);
  await sayOn.ping();
  const say = new Lockstep(sayOn);
  const redis = new Redis(redisUrls()[0]);
  let lost = false;
  const mutex = new Mutex(redis, s.key, {
    lockTimeout: s.ttl,
    retryInterval: s.retry_delay,
    acquireTimeout: Number(process.env.ACQUIRE_TIMEOUT_MS || '3'),
    refreshInterval: Number(process.env.REFRESH_MS || '1'),
    onLockLost: () => {
      lost = true;
    },
  });
  const refresh = mutex._refresh.bind(mutex);
  mutex._refresh = async () => {
    const sent = nowMs();
    const refreshed = await refresh();
    if (refreshed) await say.renew(sent + s.ttl);
    return refreshed;
  };
  if (!(await mutex.tryAcquire())) {
    await say.because('gave up: acquireTimeout passed');
    redis.disconnect();
    sayOn.disconnect();
    return;
  }
  // The SET that gave the lock ran at this clock: its PX runs out at +ttl.
  await say.enter(nowMs() + s.ttl);
  const work = Number(process.env.WORK_MS || '2');
  for (let t = 0; t < work && !lost; ++t) await delay(1);
  if (lost) {
    await say.because('onLockLost: the refresh found the lock gone');
    await say.leave();
    await say.released();
  } else {
    await say.leave();
    await mutex.release();
    await say.released();
  }
  redis.disconnect();
  sayOn.disconnect();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
