#include "sim/lang/catalogue.h"

#include <array>
#include <cctype>

namespace lockstep::lang {
namespace {

using enum Msg;
constexpr Use W = Use::kWord;
constexpr Use S = Use::kShown;

// Each message once: its English, then its Chinese. Names, commands, keys
// and numbers stay as they are in both.
constexpr std::array kEntries{
    // The course.
    Entry{kCourseIndexTitle, W, "lockstep: a course in locks on Redis",
          "lockstep：Redis 上的锁，一门课程"},
    Entry{kCourseIndexIntro, W,
          "Each level is a game: you are the scheduler, choosing which client moves next and when "
          "the clock ticks. Every level's page works offline. The shortest break is the "
          "exhaustive search's, not a guess.",
          "每一关都是一个游戏：你就是调度器，决定下一步由哪个客户端执行、时钟何时前进。"
          "每一关的页面都能离线使用。最短的攻破步数来自穷举搜索，不是估计。"},
    Entry{kCourseLevel, W, "Level {1} of {2}", "第 {1} 关（共 {2} 关）"},
    Entry{kCourseGoal, W, "Goal: {1}", "目标：{1}"},
    Entry{kCourseChallenge, W,
          "Challenge: break it in at most {1} moves (the shortest schedule that breaks it).",
          "挑战：最多用 {1} 步攻破它（攻破它的最短调度就是这么多步）。"},
    Entry{kCourseUnbreakable, W,
          "Challenge: break it, or play to an end and find that no schedule can (the search "
          "finds no violation reachable).",
          "挑战：攻破它，或者一直玩到终局，发现没有任何调度能攻破它（搜索找不到可达的违反）。"},
    Entry{kCourseChallengeMet, W,
          "Challenge met: you broke it in as few moves as the search's shortest counterexample.",
          "挑战完成：你攻破它所用的步数和搜索找到的最短反例一样少。"},
    Entry{kCourseChallengeOver, W,
          "Broken, but the shortest schedule that breaks it takes {1} ({2})",
          "已攻破，但攻破它的最短调度只需 {1} 步（{2}）"},
    Entry{kCourseAllLevels, W, "All levels", "全部关卡"},
    Entry{kCourseNextLevel, W, "Next level: {1}", "下一关：{1}"},
    Entry{kCourseLastLevel, W, "That was the last level.", "这是最后一关。"},

    // The game's page.
    Entry{kPageTitle, W, "lockstep: be the scheduler", "lockstep：由你来当调度器"},
    Entry{kPageHeading, W, "Be the scheduler: {1}", "由你来当调度器：{1}"},
    Entry{kPageYourGoal, W, "Your goal: {1}", "你的目标：{1}"},
    Entry{kPageStory, W, "The story", "背景故事"},
    Entry{kPageYourMove, W, "Your move", "轮到你了"},
    Entry{kPageUndo, W, "Undo", "撤销"},
    Entry{kPageRestart, W, "Restart", "重新开始"},
    Entry{kPageHint, W, "Hint", "提示"},
    Entry{kPageKeys, W, "Keys: 1\u20138 the client's next step, t tick, u undo, r restart, h hint.",
          "按键：1\u20138 让该客户端走下一步，t 让时钟前进，u 撤销，r 重新开始，h 提示。"},
    Entry{kPageNow, W, "Now", "当前状态"},
    Entry{kPageMove, W, "{1}: {2}", "{1}：{2}"},
    Entry{kPageWithAge, W, "{1}, with a timestamp read {2} tick ago",
          "{1}，用的是 {2} 个时钟周期之前读到的时间戳"},
    Entry{kPageWithAges, W, "{1}, with a timestamp read {2} ticks ago",
          "{1}，用的是 {2} 个时钟周期之前读到的时间戳"},
    Entry{kPageNextStep, W, "its next step", "它的下一步"},
    Entry{kPageTick, W, "tick: the clock moves on", "tick：时钟前进一格"},
    Entry{kPageCrash, W, "{1} crashes: it never runs again", "{1} 崩溃：再也不会运行"},
    Entry{kPageStall, W, "{1} stalls past its lease: the clock moves on",
          "{1} 停顿，超过了租期：时钟前进"},
    Entry{kPageOver, W, "The game is over.", "游戏结束。"},
    Entry{kPageNothingLeft, W,
          "Nothing left to do: every client finished or waits on a clock that cannot move.",
          "无事可做：每个客户端要么已经结束，要么在等一个不会再走的时钟。"},
    Entry{kPageChoose, W, "Step {1}: choose who moves next.", "第 {1} 步：选择下一个行动者。"},
    Entry{kPageClocks, W, "clock {1}; clients' clocks: {2}", "时钟 {1}；各客户端的时钟：{2}"},
    Entry{kPageInCs, W, "in the critical section: {1}", "在临界区内：{1}"},
    Entry{kPageHolding, W, "believe they hold the lock: {1}", "自认为持有锁：{1}"},
    Entry{kPageNobody, W, "nobody", "无"},
    Entry{kPageKeyspace, W, "keyspace: {1}", "键空间：{1}"},
    Entry{kPageLaneStep, W, "step", "步"},
    Entry{kPageLaneClock, W, "clock", "时钟"},
    Entry{kPageLaneKeyspace, W, "keyspace after the step", "这一步之后的键空间"},
    Entry{kPageLaneTick, W, "tick {1}", "前进到 {1}"},
    Entry{kPageDebriefStep, W, "Step {1}: {2}", "第 {1} 步：{2}"},
    Entry{kPageRead, W, "{1} read {2} = {3}.", "{1} 读到 {2} = {3}。"},
    Entry{kPageReadBy, W, "{1} read {2} = {3}, written by {4}.",
          "{1} 读到 {2} = {3}，由 {4} 写入。"},
    Entry{kPageExpired, W, "{1}'s lock on {2} expired.", "{1} 在 {2} 上的锁过期了。"},
    Entry{kPageLostTo, W, "{1}'s lock on {2} was lost to a {3}.",
          "{1} 在 {2} 上的锁因 {3} 而丢失。"},
    Entry{kPageRemovedOwn, W, "{1}'s {2} removed its own lock on {3}.",
          "{1} 的 {2} 删除了它自己在 {3} 上的锁。"},
    Entry{kPageReplacedOwn, W, "{1}'s {2} replaced its own lock on {3}.",
          "{1} 的 {2} 替换了它自己在 {3} 上的锁。"},
    Entry{kPageRemoved, W, "{1}'s {2} removed {3}'s lock on {4}.",
          "{1} 的 {2} 删除了 {3} 在 {4} 上的锁。"},
    Entry{kPageReplaced, W, "{1}'s {2} replaced {3}'s lock on {4}.",
          "{1} 的 {2} 替换了 {3} 在 {4} 上的锁。"},
    Entry{kPageEnteredBelieving, W, "{1}, believing it held the lock: {2}.",
          "{1}，它以为自己持有锁：{2}。"},
    Entry{kPageEntered, W, "{1}.", "{1}。"},
    Entry{kPageWin, W, "You win: you can't break this one.", "你赢了：这一关攻不破。"},
    Entry{kPageWinText, W,
          "No schedule breaks it: the search walked all {1} states of this game and found no "
          "violation reachable. You played {2} steps to an end ({3} different schedule so far): "
          "{4}.",
          "没有任何调度能攻破它：搜索走遍了这个游戏的全部 {1} 个状态，找不到可达的违反。"
          "你走了 {2} 步到达终局（到目前为止试过 {3} 种不同的调度）：{4}。"},
    Entry{kPageWinTexts, W,
          "No schedule breaks it: the search walked all {1} states of this game and found no "
          "violation reachable. You played {2} steps to an end ({3} different schedules so far): "
          "{4}.",
          "没有任何调度能攻破它：搜索走遍了这个游戏的全部 {1} 个状态，找不到可达的违反。"
          "你走了 {2} 步到达终局（到目前为止试过 {3} 种不同的调度）：{4}。"},
    Entry{kPageBroke, W, "You broke the lock.", "你攻破了这把锁。"},
    Entry{kPageViolationAt, W, "{1} at step {2}: {3}.", "第 {2} 步违反了 {1}：{3}。"},
    Entry{kPageHow, W, "How it happened:", "经过如下："},
    Entry{kPageStorySoFar, W, "The story so far is the table: {1}", "至此的经过就是上面的表：{1}"},
    Entry{kPageHintNone, W, "No violation is reachable from here within the scenario's bounds.",
          "在这个场景的界限内，从这里出发到达不了任何违反。"},
    Entry{kPageHintAway, W, "A violation is {1} step away. Try {2}.",
          "离违反还有 {1} 步。试试：{2}。"},
    Entry{kPageHintAways, W, "A violation is {1} steps away. Try {2}.",
          "离违反还有 {1} 步。试试：{2}。"},
    Entry{kPageHintEnd, W, "This end breaks a property.", "这个终局违反了一条性质。"},
    Entry{kPageCodeNext, W, "{1} next at {2}", "{1} 下一步在 {2}"},
    Entry{kPageCodeLast, W, "{1} last at {2}", "{1} 上一步在 {2}"},

    // A game's goal.
    Entry{kGoalFix, S,
          "Try to break the fix: find a schedule in which two clients hold the lock at once, or "
          "show that there is none.",
          "试着攻破这个修复：找出一个让两个客户端同时持有锁的调度，或者说明这样的调度不存在。"},
    Entry{kGoalMutualExclusion, S,
          "Make two clients hold the lock (be in the critical section) at once.",
          "让两个客户端同时持有锁（同时处于临界区）。"},
    Entry{kGoalAnyProperty, S, "Find a schedule that breaks one of the scenario's properties.",
          "找出一个违反该场景某条性质的调度。"},
    Entry{kGoalProperty, S, "Find a schedule that breaks {1}.", "找出一个违反 {1} 的调度。"},

    // The model's events.
    Entry{kEventAlgorithmThrew, S, "{1}'s algorithm threw: {2}", "{1} 的算法抛出了错误：{2}"},
    Entry{kEventEnters, S, "{1} enters the critical section", "{1} 进入临界区"},
    Entry{kEventGivesUp, S, "{1} gives up", "{1} 放弃"},
    Entry{kEventRenews, S, "{1} renews its lease: valid until {2} on its clock",
          "{1} 续租：按它的时钟有效到 {2}"},
    Entry{kEventFinishes, S, "{1} finishes", "{1} 结束"},
    Entry{kEventAvailable, S, "{1} is available again", "{1} 恢复可用"},
    Entry{kEventTimesOut, S, "{1} times out", "{1} 超时"},
    Entry{kEventWakes, S, "{1} wakes", "{1} 醒来"},
    Entry{kEventLeaves, S, "{1} leaves the critical section", "{1} 离开临界区"},
    Entry{kEventWrites, S, "{1} writes the resource", "{1} 写入资源"},
    Entry{kEventWriteRefused, S, "{1}'s write is refused by the resource", "{1} 的写入被资源拒绝"},
    Entry{kEventStalls, S, "{1} stalls past its bound", "{1} 停顿，超过了它的界限"},
    Entry{kEventServerJump, S, "the server's clock jumps +{1} to {2}",
          "服务器的时钟跳快 +{1}，到 {2}"},
    Entry{kEventJump, S, "{1}'s clock jumps +{2} to {3}", "{1} 的时钟跳快 +{2}，到 {3}"},
    Entry{kEventCrashes, S, "{1} crashes", "{1} 崩溃"},
    Entry{kEventRequestLost, S, "{1}'s request is lost", "{1} 的请求丢失了"},
    Entry{kEventUnavailable, S, "{1} is unavailable", "{1} 不可用"},
    Entry{kEventReplyLost, S, "{1}'s reply is lost", "{1} 的回复丢失了"},
    Entry{kEventApplies, S, "{1} applies {2}'s write of {3}", "{1} 应用了 {2} 对 {3} 的写入"},
    Entry{kEventPromotedLosingOne, S,
          "{1} fails; {2} is promoted to master, losing 1 unreplicated write",
          "{1} 故障；{2} 被提升为主节点，丢失了 1 个尚未复制的写入"},
    Entry{kEventPromotedLosing, S,
          "{1} fails; {2} is promoted to master, losing {3} unreplicated writes",
          "{1} 故障；{2} 被提升为主节点，丢失了 {3} 个尚未复制的写入"},
    Entry{kEventPromoted, S, "{1} fails; {2} is promoted to master",
          "{1} 故障；{2} 被提升为主节点"},
    Entry{kEventRestartsUntil, S, "{1} restarts, unavailable until {2}",
          "{1} 重启，在 {2} 之前不可用"},
    Entry{kEventRestarts, S, "{1} restarts", "{1} 重启"},

    // The built-in algorithms' why-lines.
    Entry{kWhyWriteResource, S, "inside the critical section: write the resource with token {1}",
          "在临界区内：用令牌 {1} 写资源"},
    Entry{kWhyResourceAccepted, S, "the resource accepted token {1}", "资源接受了令牌 {1}"},
    Entry{kWhyResourceRefused, S, "the resource refused token {1}: a later holder has written",
          "资源拒绝了令牌 {1}：后来的持有者已经写过"},
    Entry{kWhyFencingRetry, S, "another client holds the lock (or no reply); sleep {1} and retry",
          "另一个客户端持有锁（或者没有回复）；休眠 {1} 后重试"},
    Entry{kWhyFencingToken, S,
          "the script set the key and gave fencing token {1}: the lock is mine until my clock "
          "reads {2}",
          "脚本设置了键，并给出防护令牌 {1}：锁归我，直到我的时钟读数为 {2}"},
    Entry{kWhyInstanceLocked, S, "instance {1} locked: {2} locked so far",
          "实例 {1} 已加锁：目前共锁住 {2} 个"},
    Entry{kWhyInstanceNotLocked, S,
          "instance {1} not locked (held, or no reply): {2} locked so far",
          "实例 {1} 未加锁（已被别人持有，或者没有回复）：目前共锁住 {2} 个"},
    Entry{kWhyMajorityValid, S,
          "{1} of {2} instances locked (a majority is {3}), validity {4} left: the lock is mine "
          "until {5}",
          "{2} 个实例中锁住了 {1} 个（多数是 {3} 个），有效期还剩 {4}：锁归我，直到 {5}"},
    Entry{kWhyMajorityNoValidity, S,
          "{1} of {2} instances locked (a majority is {3}), but no validity left: unlock them all "
          "and back off",
          "{2} 个实例中锁住了 {1} 个（多数是 {3} 个），但有效期已经用完：全部解锁，然后退避"},
    Entry{kWhyMajorityShort, S,
          "{1} of {2} instances locked (a majority is {3}): unlock them all and back off",
          "{2} 个实例中锁住了 {1} 个（多数是 {3} 个）：全部解锁，然后退避"},
    Entry{kWhyDelWhoever, S, "DEL the key, whoever's lock it is by now",
          "DEL 这个键，不管它此刻是谁的锁"},
    Entry{kWhyGetCompare, S, "GET the key to see whether it still holds my token",
          "GET 这个键，看它是否仍是我的令牌"},
    Entry{kWhyCompareMine, S,
          "the value is my token: DEL it (the key may change before the DEL runs)",
          "值是我的令牌：DEL 它（在 DEL 执行之前，键可能已经变了）"},
    Entry{kWhyCompareNotMine, S, "not my token: leave the key alone", "不是我的令牌：不碰这个键"},
    Entry{kWhyCompareScript, S, "delete the key only if it still holds my token, in one script",
          "用一个脚本完成：只有键仍是我的令牌时才删除它"},
    Entry{kWhyHeldRetry, S, "another client holds the lock; sleep {1} and retry",
          "另一个客户端持有锁；休眠 {1} 后重试"},
    Entry{kWhyNoReplyRetry, S, "no reply: I cannot know; sleep {1} and retry",
          "没有回复：我无从得知；休眠 {1} 后重试"},
    Entry{kWhySetNxPx, S,
          "SET NX set the key: the lock is mine for its TTL, until my clock reads {1}",
          "SET NX 设置了键：在它的 TTL 内锁归我，直到我的时钟读数为 {1}"},
    Entry{kWhyKeySetRetry, S, "the key is set: sleep {1} and retry", "键已被设置：休眠 {1} 后重试"},
    Entry{kWhyNoTtlYet, S,
          "SETNX set the key, with no TTL yet: PEXPIRE it next (a crash now leaves it forever)",
          "SETNX 设置了键，但还没有 TTL：下一步 PEXPIRE 它（此刻崩溃，键就永远留下）"},
    Entry{kWhyExpiresIn, S, "the key expires in {1}: the lock is mine until my clock reads {2}",
          "键将在 {1} 后过期：锁归我，直到我的时钟读数为 {2}"},
    Entry{kWhyMineBySetNx, S,
          "SETNX set the key: the lock is mine until {1} (my clock {2} + timeout {3} + 1)",
          "SETNX 设置了键：锁归我，直到 {1}（我的时钟 {2} + 超时 {3} + 1）"},
    Entry{kWhyMineByGetSet, S,
          "the old value {1} < my clock {2} is still expired: the lock is mine until {3} (my clock "
          "{4} + timeout {5} + 1)",
          "旧值 {1} < 我的时钟 {2}，仍然是过期的：锁归我，直到 {3}（我的时钟 {4} + 超时 {5} + 1）"},
    Entry{kWhyCheckExpired, S,
          "the key is set: someone holds the lock; GET it to see if it expired",
          "键已被设置：有人持有锁；GET 它，看是否已经过期"},
    Entry{kWhyKeyGone, S, "the key is gone (released meanwhile): retry SETNX at once",
          "键不见了（其间已被释放）：立即重试 SETNX"},
    Entry{kWhyNoTimestamp, S, "{1} is no timestamp: never taken over; sleep {2} and retry",
          "{1} 不是时间戳：永远不会被接管；休眠 {2} 后重试"},
    Entry{kWhyNotExpired, S, "{1} >= my clock {2}: not expired; sleep {3} and retry from SETNX",
          "{1} >= 我的时钟 {2}：没有过期；休眠 {3} 后从 SETNX 重试"},
    Entry{kWhyTakeOverDel, S, "{1} < my clock {2}: expired; take it over with DEL, then SETNX",
          "{1} < 我的时钟 {2}：已过期；接管它：先 DEL，再 SETNX"},
    Entry{kWhyTakeOverGetSet, S, "{1} < my clock {2}: expired; take it over with GETSET",
          "{1} < 我的时钟 {2}：已过期；用 GETSET 接管它"},
    Entry{kWhyDeletedExpired, S, "deleted the expired lock; now SETNX it",
          "删除了过期的锁；现在 SETNX 它"},
    Entry{kWhyDeletedFirst, S, "someone deleted it first; SETNX it anyway",
          "有人先删除了它；照样 SETNX"},
    Entry{kWhySetFirst, S, "someone set it first: retry from the start",
          "有人先设置了它：从头重试"},
    Entry{kWhyTookFirst, S,
          "the old value {1} >= my clock {2}: another client took it first; retry from the first "
          "step",
          "旧值 {1} >= 我的时钟 {2}：另一个客户端先接管了它；从第一步重试"},
    Entry{kWhyOldNoTimestamp, S, "the old value {1} is no timestamp; retry from the first step",
          "旧值 {1} 不是时间戳；从第一步重试"},
    Entry{kWhyGetSetNoKey, S, "GETSET found no key: not taken over; retry from the first step",
          "GETSET 没有找到键：没有接管；从第一步重试"},
    Entry{kWhyStillMine, S, "my timestamp {1} >= my clock {2}: still mine, DEL it",
          "我的时间戳 {1} >= 我的时钟 {2}：锁仍是我的，DEL 它"},
    Entry{kWhyExpiredLeave, S,
          "my timestamp {1} < my clock {2}: expired, another client may hold it; leave the key",
          "我的时间戳 {1} < 我的时钟 {2}：已过期，可能已有别的客户端持有它；不碰这个键"},

    // The properties' violations.
    Entry{kViolationThreeInCs, S, "{1}, {2} and {3} are in the critical section at once",
          "{1}、{2} 和 {3} 同时处于临界区"},
    Entry{kViolationTwoInCs, S, "{1} and {2} are in the critical section at once",
          "{1} 和 {2} 同时处于临界区"},
    Entry{kViolationForeignRelease, S, "{1} released {2}, but the value it removed was {3}'s lock",
          "{1} 释放了 {2}，但它删除的值是 {3} 的锁"},
    Entry{kViolationStaleWrite, S,
          "the resource accepted {1}'s write (token {2}) after {3}, which acquired the lock later, "
          "had written it",
          "资源接受了 {1} 的写入（令牌 {2}），而后来才获得锁的 {3} 在此之前已经写过"},
    Entry{kViolationLostLeaseRenewed, S,
          "{1}'s lease was renewed after {2} had acquired the lock: it lost the lock and was not "
          "told",
          "{2} 获得锁之后，{1} 的租约仍被续期：它已失去锁，却没有被告知"},
    Entry{kViolationAllGaveUp, S, "every contender gave up ({1}), and none holds the lock",
          "所有竞争者都放弃了（{1}），没有一个持有锁"},

    // The terminal timeline.
    Entry{kTimelineSkew, W, "{1} (skew {2})", "{1}（时钟偏差 {2}）"},
    Entry{kTimelineInCs, W, "in CS", "临界区内"},
    Entry{kTimelineCrashed, W, "(crashed)", "（已崩溃）"},
    Entry{kTimelineCrashes, W, "CRASHES", "崩溃"},
    Entry{kTimelineStalls, W, "STALLS (clock passes its bound)", "停顿（时钟越过它的界限）"},
    Entry{kTimelineWakes, W, "wakes", "醒来"},
    Entry{kTimelineDraws, W, "draws {1}", "抽到 {1}"},
    Entry{kTimelineLeavesCs, W, "leaves CS", "离开临界区"},
    Entry{kTimelineRequestLost, W, "{1} -> request LOST", "{1} -> 请求丢失"},
    Entry{kTimelineReplyLost, W, "{1} -> {2}, reply LOST", "{1} -> {2}，回复丢失"},
    Entry{kTimelineEntersCs, W, "[enters CS]", "[进入临界区]"},
    Entry{kTimelineWakesNote, W, "(wakes)", "（醒来）"},
    Entry{kTimelineTimesOutNote, W, "(times out)", "（超时）"},
    Entry{kTimelineViolation, W, "VIOLATION of {1} at step {2}: {3}", "第 {2} 步违反了 {1}：{3}"},
    Entry{kTimelineNoViolation, W, "no violation ({1}, {2} steps)", "没有违反（{1}，共 {2} 步）"},
    Entry{kTimelineCycle, W, "~~ the cycle: steps {1} to {2} repeat for ever ~~",
          "~~ 循环：第 {1} 步到第 {2} 步永远重复 ~~"},
    Entry{kTimelineCycleAgain, W, "~~ the cycle again ~~", "~~ 再次循环 ~~"},
    Entry{kTimelineCsList, W, "[CS: {1}]", "[临界区：{1}]"},
    Entry{kTimelineFailed, W, "(failed)", "（已失效）"},
    Entry{kTimelineRestarting, W, "(restarting) {1}", "（重启中）{1}"},
    Entry{kTimelineUnreplicated, W, "{1} +{2} unreplicated", "{1} +{2} 个未复制"},

    // A step's argument age, and how an execution ended.
    Entry{kAgeNewerOne, S, "args 1 tick old: replaced {1}'s newer timestamp {2} with an older {3}",
          "参数是 1 个时钟周期之前的：用更旧的 {3} 替换了 {1} 更新的时间戳 {2}"},
    Entry{kAgeNewer, S, "args {1} ticks old: replaced {2}'s newer timestamp {3} with an older {4}",
          "参数是 {1} 个时钟周期之前的：用更旧的 {4} 替换了 {2} 更新的时间戳 {3}"},
    Entry{kAgeReplacedOne, S, "args 1 tick old: replaced {1}'s {2} with {3}",
          "参数是 1 个时钟周期之前的：用 {3} 替换了 {1} 的 {2}"},
    Entry{kAgeReplaced, S, "args {1} ticks old: replaced {2}'s {3} with {4}",
          "参数是 {1} 个时钟周期之前的：用 {4} 替换了 {2} 的 {3}"},
    Entry{kAgeOne, S, "args 1 tick old", "参数是 1 个时钟周期之前的"},
    Entry{kAge, S, "args {1} ticks old", "参数是 {1} 个时钟周期之前的"},
    Entry{kEndViolation, S, "violation", "违反"},
    Entry{kEndNothingLeft, S, "nothing left to do", "无事可做"},
    Entry{kEndFinished, S, "schedule finished", "调度走完"},
    Entry{kEndBound, S, "step bound reached", "到达步数上限"},
    Entry{kEndStopped, S, "stopped", "已停止"},
};

// Every id has its entry, in order: a message missing from the table, or
// one out of place, does not compile.
constexpr bool CoversInOrder() {
  if (kEntries.size() != static_cast<size_t>(kCount)) return false;
  for (size_t i = 0; i < kEntries.size(); ++i) {
    if (kEntries[i].id != static_cast<Msg>(i)) return false;
    if (!kEntries[i].en || !kEntries[i].zh) return false;
  }
  return true;
}
static_assert(CoversInOrder(), "the catalogue has one entry per Msg, in the order of Msg");

}  // namespace

std::span<const Entry> Catalogue() { return kEntries; }

const char* Text(Msg id, Language language) {
  const Entry& e = kEntries[static_cast<size_t>(id)];
  return language == Language::kZh ? e.zh : e.en;
}

std::string Substitute(std::string_view pattern, const std::vector<std::string>& args) {
  std::string out;
  for (size_t i = 0; i < pattern.size();) {
    size_t j = i + 1;
    if (pattern[i] == '{') {
      while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j]))) ++j;
    }
    // {1} to {99}: a brace with anything else in it is text.
    if (j > i + 1 && j <= i + 3 && j < pattern.size() && pattern[j] == '}') {
      const size_t n = std::stoul(std::string(pattern.substr(i + 1, j - i - 1)));
      if (n >= 1 && n <= args.size()) {
        out += args[n - 1];
        i = j + 1;
        continue;
      }
    }
    out += pattern[i++];
  }
  return out;
}

std::string Format(Msg id, Language language, const std::vector<std::string>& args) {
  return Substitute(Text(id, language), args);
}

std::vector<int> Placeholders(std::string_view pattern) {
  std::vector<int> numbers;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '{') continue;
    size_t j = i + 1;
    while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j]))) ++j;
    if (j > i + 1 && j < pattern.size() && pattern[j] == '}' && j - i <= 3) {
      numbers.push_back(std::stoi(std::string(pattern.substr(i + 1, j - i - 1))));
    }
  }
  return numbers;
}

}  // namespace lockstep::lang
