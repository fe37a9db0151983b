//! The configurations and event streams the tests share: rooms, patterns, named windows, joins and trackers.

use super::*;

pub(super) const ROOMS: &str = r#"{"host":"h",
  "in":[{"id":"Room.*","type":"Room","isPattern":true,"attributes":[
    {"name":"temperature","type":"double"},{"name":"floor","type":"string"},{"name":"people","type":"int"},
    {"name":"flap","type":"string"}]}],
  "out":[
    {"id":"F","type":"Floor","attributes":[{"name":"temperature","type":"double"},{"name":"mid","type":"double"},
      {"name":"once","type":"double"}]},
    {"id":"S","type":"Stats","attributes":[{"name":"n","type":"int"},{"name":"lo","type":"double"},
      {"name":"hi","type":"double"},{"name":"sd","type":"double"},{"name":"people","type":"int"},
      {"name":"mid","type":"double"},{"name":"dev","type":"double"},{"name":"kinds","type":"int"},
      {"name":"busy","type":"int"}]},
    {"id":"H","type":"Hot","attributes":[{"name":"floor","type":"string"},{"name":"temperature","type":"double"},
      {"name":"mean","type":"double"},{"name":"mid","type":"double"}]},
    {"id":"L","type":"Warm","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"N","type":"Len","attributes":[{"name":"people","type":"int"}]},
    {"id":"P","type":"Flap","attributes":[{"name":"status","type":"string"}]},
    {"id":"U","type":"Upper","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"C","type":"Crowd","attributes":[{"name":"n","type":"int"}]},
    {"id":"B","type":"Brief","attributes":[{"name":"people","type":"int"},{"name":"lo","type":"double"}]},
    {"id":"G","type":"Batched","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"K","type":"Kept","attributes":[{"name":"people","type":"int"}]},
    {"id":"E","type":"Each","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"T","type":"Total","attributes":[{"name":"n","type":"int"}]},
    {"id":"Q","type":"Snap","attributes":[{"name":"n","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"V","type":"Above","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"W","type":"Firsts","attributes":[{"name":"people","type":"int"}]},
    {"id":"A","type":"Later","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"R","type":"Tardy","attributes":[{"name":"people","type":"int"}]},
    {"id":"Y","type":"Late","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"Z","type":"Early","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"X","type":"AllGroups","attributes":[{"name":"n","type":"int"},{"name":"people","type":"int"}]},
    {"id":"J","type":"Quiet","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"D","type":"Shot","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"M","type":"Recent","attributes":[{"name":"people","type":"int"}]},
    {"id":"I","type":"Hush","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"O","type":"Hushed","attributes":[{"name":"n","type":"int"}]},
    {"id":"FF","type":"FirstFloor","attributes":[{"name":"n","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"FA","type":"FirstAll","attributes":[{"name":"people","type":"int"}]},
    {"id":"FR","type":"FirstRoom","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"FO","type":"FirstOrdered","attributes":[{"name":"n","type":"int"}]},
    {"id":"EV","type":"Changes","attributes":[{"name":"n","type":"int"},{"name":"people","type":"int"}]},
    {"id":"EA","type":"ChangesAll","attributes":[{"name":"people","type":"int"}]},
    {"id":"CS","type":"ColumnShot","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"CA","type":"ColumnAll","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"CE","type":"ColumnEvery","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"CU","type":"ColumnUnique","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"CW","type":"ColumnWarm","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"RB","type":"RoomBatch","attributes":[{"name":"people","type":"int"}]},
    {"id":"FB","type":"FloorBatch","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"MB","type":"RoomsBatch","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"AB","type":"AllBatch","attributes":[{"name":"n","type":"int"},{"name":"people","type":"int"}]},
    {"id":"PB","type":"PacedBatch","attributes":[{"name":"people","type":"int"}]},
    {"id":"IB","type":"FirstBatch","attributes":[{"name":"people","type":"int"}]},
    {"id":"SB","type":"ShotBatch","attributes":[{"name":"people","type":"int"}]},
    {"id":"VB","type":"EveryBatch","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"LB","type":"LastBatch","attributes":[{"name":"people","type":"int"}]},
    {"id":"AF","type":"AllFloors","attributes":[{"name":"n","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"SF","type":"ShotFloors","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"IF","type":"FirstFloors","attributes":[{"name":"n","type":"int"}]},
    {"id":"ET","type":"EveryTotal","attributes":[{"name":"people","type":"int"}]},
    {"id":"DF","type":"DefaultFloors","attributes":[{"name":"people","type":"int"}]},
    {"id":"CB","type":"ColumnBatch","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"CSB","type":"ColumnShotBatch","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"CEB","type":"ColumnEveryBatch","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"CLB","type":"ColumnLastBatch","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"CAB","type":"ColumnAllBatch","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"CFB","type":"ColumnFirstBatch","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"CTB","type":"ColumnLateBatch","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"GN","type":"Gone","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"RP","type":"Replaced","attributes":[{"name":"people","type":"int"}]},
    {"id":"PU","type":"Pushed","attributes":[{"name":"people","type":"int"}]},
    {"id":"UB","type":"Unbatched","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"GL","type":"GoneLater","attributes":[{"name":"people","type":"int"}]},
    {"id":"BF","type":"Before","attributes":[{"name":"people","type":"int"}]},
    {"id":"BA","type":"BeforeAll","attributes":[{"name":"n","type":"int"}]},
    {"id":"BU","type":"BeforeUnique","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"LW","type":"LeftWith","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"RW","type":"ReplacedWith","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"BB","type":"BatchBefore","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"BL","type":"BatchLeft","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"GE","type":"GoneEvery","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"RL","type":"ReplacedLast","attributes":[{"name":"people","type":"int"}]},
    {"id":"UA","type":"UnbatchedAll","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"BE","type":"BeforeEvery","attributes":[{"name":"people","type":"int"}]},
    {"id":"BLS","type":"BeforeLast","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"BAF","type":"BeforeAllFloors","attributes":[{"name":"n","type":"int"}]},
    {"id":"BFI","type":"BeforeFirst","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"BFH","type":"BeforeFirstHaving","attributes":[{"name":"n","type":"int"}]},
    {"id":"BT","type":"BeforeTotal","attributes":[{"name":"people","type":"int"}]},
    {"id":"BTS","type":"BeforeTotals","attributes":[{"name":"n","type":"int"}]},
    {"id":"LE","type":"LeftEvery","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"LL","type":"LeftLast","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"LAL","type":"LeftAllLast","attributes":[{"name":"temperature","type":"double"},{"name":"n","type":"double"}]},
    {"id":"FS","type":"FirstSeen","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"OP","type":"Opening","attributes":[{"name":"n","type":"int"},{"name":"people","type":"int"}]},
    {"id":"EA","type":"Earliest","attributes":[{"name":"people","type":"int"}]},
    {"id":"ST","type":"Starters","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"FB","type":"FirstBefore","attributes":[{"name":"n","type":"int"}]},
    {"id":"EV","type":"Ever","attributes":[{"name":"n","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"EP","type":"EverPaced","attributes":[{"name":"people","type":"int"}]},
    {"id":"OT","type":"OpeningTime","attributes":[{"name":"n","type":"int"},{"name":"people","type":"int"}]},
    {"id":"OR","type":"OpeningRooms","attributes":[{"name":"people","type":"int"}]},
    {"id":"RO","type":"Rounded","attributes":[{"name":"n","type":"int"},{"name":"people","type":"int"},{"name":"temperature","type":"double"}]}],
  "statements":[
    "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature, median(temperature) as mid, sum(distinct temperature) as once FROM Room.win:time(10 sec) GROUP BY floor OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Stats SELECT floor as id, count(*) as n, min(temperature) as lo, max(temperature) as hi, stddev(temperature) as sd, sum(people) as people, median(temperature) as mid, avedev(temperature) as dev, count(distinct people) as kinds, count(*, people > 3) as busy FROM Room.win:time(5 sec) WHERE temperature > 10 GROUP BY floor",
    "INSERT INTO Hot SELECT id, floor, temperature, avg(temperature) as mean, median(temperature) as mid FROM Room.std:unique(id) GROUP BY floor HAVING avg(temperature) > 20",
    "INSERT INTO Warm SELECT id, temperature FROM Room(temperature > 30) OUTPUT LAST EVERY 3 sec",
    "INSERT INTO Crowd SELECT floor as id, count(*) as n FROM Room.win:time(3 sec) GROUP BY floor HAVING people > 9",
    "INSERT INTO Brief SELECT floor as id, sum(people) as people, min(temperature) as lo FROM Room.win:time(1 sec) GROUP BY floor OUTPUT LAST EVERY 3 sec",
    "INSERT INTO Len SELECT floor as id, sum(people) as people FROM Room.win:length(5) GROUP BY floor",
    "INSERT INTO Batched SELECT floor as id, sum(people) as people, avg(temperature) as temperature FROM Room.win:time_batch(2 sec) GROUP BY floor HAVING count(*) > 1 OR people > 15",
    "INSERT INTO Kept SELECT id, people FROM Room.win:length_batch(3) WHERE people > 5",
    "INSERT INTO Each SELECT id, people, count(*) as n FROM Room(temperature > 10).win:length_batch(4) GROUP BY floor ORDER BY people DESC, id",
    "INSERT INTO Total SELECT count(*) as n FROM Room.win:time_batch(1500 msec)",
    "INSERT INTO Snap SELECT floor as id, count(*) as n, max(temperature) as temperature FROM Room.win:time(3 sec) WHERE people > 3 GROUP BY floor HAVING count(*) < 4 OUTPUT SNAPSHOT EVERY 2 sec",
    "INSERT INTO Above SELECT id, temperature FROM Room(temperature > 25) OUTPUT ALL EVERY 2 sec ORDER BY temperature",
    "INSERT INTO Firsts SELECT id, people FROM Room.win:length(3) WHERE people > 10 OUTPUT FIRST EVERY 1500 msec",
    "INSERT INTO Warmish SELECT id, floor, temperature FROM Room(temperature > 20)",
    "INSERT INTO Upper SELECT floor as id, max(temperature) as temperature FROM Warmish GROUP BY floor OUTPUT LAST EVERY 4 sec ORDER BY temperature DESC",
    "INSERT INTO Later SELECT floor as id, avg(temperature) as temperature FROM Room.win:time(4 sec) GROUP BY floor OUTPUT AFTER 5 sec LAST EVERY 2 sec",
    "INSERT INTO Tardy SELECT id, people FROM Room(people > 8) OUTPUT AFTER 4 sec EVERY 1500 msec",
    "INSERT INTO Late SELECT floor as id, max(temperature) as temperature FROM Warmish GROUP BY floor OUTPUT AFTER 6 sec LAST EVERY 2 sec",
    "INSERT INTO Early SELECT id, temperature FROM Warmish OUTPUT AFTER 3 sec FIRST EVERY 2 sec",
    "INSERT INTO AllGroups SELECT floor as id, count(*) as n, sum(people) as people FROM Room.win:time(3 sec) WHERE people > 2 GROUP BY floor HAVING count(*) < 5 OUTPUT ALL EVERY 2 sec",
    "INSERT INTO Quiet SELECT floor as id, max(temperature) as temperature FROM Room.win:time(2 sec) GROUP BY floor OUTPUT AFTER 4 sec",
    "INSERT INTO Shot SELECT id, temperature FROM Room.std:unique(id) WHERE temperature > 15 OUTPUT SNAPSHOT EVERY 2 sec ORDER BY temperature DESC",
    "INSERT INTO Hush SELECT a.id as id, a.temperature as temperature FROM pattern [every a=Room(temperature > 30) -> Room(id = a.id, temperature < 20)] OUTPUT AFTER 20 sec",
    "INSERT INTO Hushed SELECT floor as id, count(*) as n FROM Room.win:time_batch(2 sec) GROUP BY floor OUTPUT AFTER 15 sec",
    "INSERT INTO Recent SELECT id, people FROM Room(people > 2).std:groupwin(floor).win:length(2) WHERE people < 15 OUTPUT AFTER 2 sec SNAPSHOT EVERY 1500 msec",
    "INSERT INTO FirstFloor SELECT floor as id, count(*) as n, max(temperature) as temperature FROM Room.win:time(3 sec) WHERE people > 3 GROUP BY floor HAVING count(*) < 4 OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO FirstAll SELECT 'all' as id, sum(people) as people FROM Room.win:length(4) WHERE temperature > 12 OUTPUT FIRST EVERY 1500 msec",
    "INSERT INTO FirstRoom SELECT id, people, avg(temperature) as temperature FROM Room.std:unique(id) WHERE people > 1 GROUP BY floor OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO FirstOrdered SELECT floor as id, count(*) as n FROM Room.std:groupwin(id).win:length(2) GROUP BY floor OUTPUT AFTER 3 sec FIRST EVERY 1 sec ORDER BY n DESC",
    "INSERT INTO Changes SELECT floor as id, count(*) as n, sum(people) as people FROM Room.std:unique(id) WHERE temperature > 12 GROUP BY floor HAVING count(*) < 3 OUTPUT EVERY 1500 msec",
    "INSERT INTO ColumnShot SELECT id, people, avg(temperature) as temperature FROM Room.win:length(4) WHERE people > 2 GROUP BY floor HAVING count(*) > 1 OUTPUT SNAPSHOT EVERY 2 sec",
    "INSERT INTO ColumnAll SELECT id, people, avg(temperature) as temperature FROM Room.win:time(3 sec) WHERE people > 2 GROUP BY floor HAVING count(*) > 1 OUTPUT ALL EVERY 2 sec",
    "INSERT INTO ColumnEvery SELECT id, people, sum(people) as n FROM Room.win:length(3) WHERE temperature > 10 OUTPUT EVERY 1500 msec",
    "INSERT INTO ColumnUnique SELECT id, people, count(*) as n FROM Room.std:unique(id) WHERE temperature > 12 GROUP BY floor OUTPUT AFTER 2 sec ALL EVERY 1 sec ORDER BY people DESC",
    "INSERT INTO ColumnWarm SELECT id, people, max(temperature) as temperature FROM Room.win:time(2 sec) HAVING max(temperature) > 20 OUTPUT ALL EVERY 1 sec",
    "INSERT INTO RoomBatch SELECT id, people FROM Room.std:groupwin(id).win:length_batch(2) WHERE people > 3 ORDER BY people DESC",
    "INSERT INTO FloorBatch SELECT floor as id, sum(people) as people, avg(temperature) as temperature FROM Room(temperature > 5).std:groupwin(id).win:time_batch(1500 msec) GROUP BY floor HAVING count(*) > 1 OR people > 12",
    "INSERT INTO RoomsBatch SELECT id, people, max(temperature) as temperature FROM Room.std:groupwin(id).win:length_batch(3) WHERE people > 1 GROUP BY floor",
    "INSERT INTO AllBatch SELECT 'all' as id, count(*) as n, min(people) as people FROM Room.std:groupwin(floor).win:time_batch(2 sec)",
    "INSERT INTO PacedBatch SELECT id, people FROM Room.win:length_batch(3) WHERE people > 4 OUTPUT LAST EVERY 1500 msec",
    "INSERT INTO FirstBatch SELECT id, people FROM Room.std:groupwin(floor).win:time_batch(1 sec) OUTPUT FIRST EVERY 2 sec ORDER BY people DESC, id",
    "INSERT INTO ShotBatch SELECT id, people FROM Room(people > 2).std:groupwin(id).win:length_batch(2) OUTPUT SNAPSHOT EVERY 2 sec ORDER BY people, id",
    "INSERT INTO EveryBatch SELECT id, temperature FROM Room.win:time_batch(1 sec) WHERE temperature > 20 OUTPUT AFTER 3 sec EVERY 1 sec",
    "INSERT INTO LastBatch SELECT floor as id, sum(people) as people FROM Room.std:groupwin(id).win:length_batch(2) WHERE temperature > 8 GROUP BY floor HAVING count(*) > 1 OR people > 10 OUTPUT LAST EVERY 1500 msec",
    "INSERT INTO AllFloors SELECT floor as id, count(*) as n, max(temperature) as temperature FROM Room.win:time_batch(1 sec) GROUP BY floor OUTPUT ALL EVERY 2 sec ORDER BY n DESC",
    "INSERT INTO ShotFloors SELECT floor as id, avg(temperature) as temperature FROM Room(people > 3).win:length_batch(3) GROUP BY floor OUTPUT AFTER 2 sec SNAPSHOT EVERY 1 sec",
    "INSERT INTO FirstFloors SELECT floor as id, count(*) as n FROM Room.std:groupwin(floor).win:time_batch(1 sec) GROUP BY floor HAVING count(*) < 4 OUTPUT FIRST EVERY 6 sec",
    "INSERT INTO EveryTotal SELECT 'all' as id, sum(people) as people FROM Room.win:length_batch(2) WHERE people > 2 OUTPUT EVERY 1 sec",
    "INSERT INTO DefaultFloors SELECT floor as id, sum(people) as people FROM Room.win:time_batch(1 sec) GROUP BY floor OUTPUT EVERY 1500 msec",
    "INSERT INTO ColumnBatch SELECT id, people, sum(people) as n FROM Room.win:length_batch(3) WHERE temperature > 10 OUTPUT LAST EVERY 1500 msec",
    "INSERT INTO ColumnShotBatch SELECT id, people, count(*) as n FROM Room.std:groupwin(id).win:length_batch(2) GROUP BY floor HAVING count(*) > 1 OUTPUT SNAPSHOT EVERY 2 sec",
    "INSERT INTO ColumnEveryBatch SELECT id, people, max(temperature) as temperature FROM Room.win:time_batch(1 sec) GROUP BY floor OUTPUT EVERY 1500 msec ORDER BY temperature DESC",
    "INSERT INTO ColumnLastBatch SELECT id, people, sum(people) as n FROM Room.win:length_batch(3) WHERE temperature > 10 GROUP BY floor OUTPUT LAST EVERY 1500 msec",
    "INSERT INTO ColumnAllBatch SELECT id, people, max(temperature) as temperature FROM Room.std:groupwin(id).win:length_batch(2) GROUP BY floor HAVING count(*) > 1 OUTPUT ALL EVERY 2 sec",
    "INSERT INTO ColumnFirstBatch SELECT id, people, count(*) as n FROM Room.win:time_batch(1 sec) WHERE people > 2 GROUP BY floor OUTPUT FIRST EVERY 3 sec",
    "INSERT INTO ColumnLateBatch SELECT id, people, avg(temperature) as temperature FROM Room.win:time_batch(1500 msec) GROUP BY floor OUTPUT AFTER 3 sec LAST EVERY 2 sec ORDER BY people DESC, id",
    "INSERT INTO Gone SELECT RSTREAM id, temperature FROM Room.win:time(3 sec) WHERE people > 2",
    "INSERT INTO Replaced SELECT RSTREAM id, people FROM Room.std:unique(id) WHERE temperature > 12 ORDER BY people DESC",
    "INSERT INTO Pushed SELECT RSTREAM id, people FROM Room(people > 1).std:groupwin(floor).win:length(2)",
    "INSERT INTO Unbatched SELECT RSTREAM id, temperature FROM Room.win:time_batch(1 sec) WHERE temperature > 10",
    "INSERT INTO GoneLater SELECT RSTREAM id, people FROM Room.win:time(2 sec) OUTPUT AFTER 3 sec",
    "INSERT INTO Before SELECT RSTREAM floor as id, sum(people) as people FROM Room.win:time(2 sec) WHERE temperature > 10 GROUP BY floor",
    "INSERT INTO BeforeAll SELECT RSTREAM 'all' as id, count(*) as n FROM Room(people > 1)",
    "INSERT INTO BeforeUnique SELECT RSTREAM floor as id, max(temperature) as temperature FROM Room.std:unique(id) GROUP BY floor HAVING count(*) > 1",
    "INSERT INTO LeftWith SELECT RSTREAM id, people, sum(people) as n FROM Room.win:time(2 sec) WHERE temperature > 8 GROUP BY floor ORDER BY people DESC",
    "INSERT INTO ReplacedWith SELECT RSTREAM id, people, count(*) as n FROM Room.std:groupwin(floor).win:length(2) HAVING count(*) > 2",
    "INSERT INTO BatchBefore SELECT RSTREAM floor as id, avg(temperature) as temperature FROM Room.win:time_batch(1 sec) GROUP BY floor",
    "INSERT INTO BatchLeft SELECT RSTREAM id, people, sum(people) as n FROM Room.std:groupwin(floor).win:length_batch(2) GROUP BY floor",
    "INSERT INTO GoneEvery SELECT RSTREAM id, temperature FROM Room.win:time(2 sec) WHERE people > 1 OUTPUT EVERY 1500 msec ORDER BY temperature DESC",
    "INSERT INTO ReplacedLast SELECT RSTREAM id, people FROM Room.std:unique(id) OUTPUT AFTER 2 sec LAST EVERY 1 sec",
    "INSERT INTO UnbatchedAll SELECT RSTREAM id, temperature FROM Room(people > 2).win:time_batch(1 sec) OUTPUT ALL EVERY 2 sec",
    "INSERT INTO BeforeEvery SELECT RSTREAM floor as id, sum(people) as people FROM Room.win:time(2 sec) WHERE temperature > 10 GROUP BY floor OUTPUT EVERY 1500 msec",
    "INSERT INTO BeforeLast SELECT RSTREAM floor as id, max(temperature) as temperature FROM Room.std:unique(id) GROUP BY floor HAVING count(*) > 1 OUTPUT AFTER 2 sec LAST EVERY 1 sec",
    "INSERT INTO BeforeAllFloors SELECT RSTREAM floor as id, count(*) as n FROM Room(people > 1).std:groupwin(floor).win:length(2) GROUP BY floor OUTPUT ALL EVERY 2 sec ORDER BY n DESC",
    "INSERT INTO BeforeFirst SELECT RSTREAM floor as id, avg(temperature) as temperature FROM Room.win:time(2 sec) GROUP BY floor OUTPUT FIRST EVERY 3 sec",
    "INSERT INTO BeforeFirstHaving SELECT RSTREAM floor as id, count(*) as n FROM Room.std:unique(id) GROUP BY floor HAVING count(*) > 1 OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO BeforeTotal SELECT RSTREAM 'all' as id, sum(people) as people FROM Room.std:unique(id) WHERE people > 1 OUTPUT LAST EVERY 1 sec",
    "INSERT INTO BeforeTotals SELECT RSTREAM 'all' as id, count(*) as n FROM Room(people > 1) OUTPUT EVERY 1 sec",
    "INSERT INTO LeftEvery SELECT RSTREAM id, people, sum(people) as n FROM Room.win:time(2 sec) WHERE temperature > 8 GROUP BY floor HAVING count(*) > 1 OUTPUT EVERY 1500 msec",
    "INSERT INTO LeftLast SELECT RSTREAM id, people, count(*) as n FROM Room.std:groupwin(floor).win:length(2) GROUP BY floor OUTPUT LAST EVERY 1 sec",
    "INSERT INTO LeftAllLast SELECT RSTREAM id, temperature, max(temperature) as n FROM Room.std:unique(id) OUTPUT AFTER 2 sec LAST EVERY 1 sec",
    "INSERT INTO ChangesAll SELECT 'all' as id, sum(people) as people FROM Room.win:time(2 sec) HAVING sum(people) > 10 OUTPUT AFTER 2 sec ALL EVERY 1 sec",
    "INSERT INTO FirstSeen SELECT id, people, temperature FROM Room(people > 2).std:firstunique(id) WHERE temperature > 12",
    "INSERT INTO Opening SELECT floor as id, count(*) n, sum(people) people FROM Room.std:groupwin(floor).win:firstlength(3) WHERE temperature > 10 GROUP BY floor OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Earliest SELECT id, people FROM Room.win:firstlength(4) WHERE people > 1 OUTPUT FIRST EVERY 1 sec",
    "INSERT INTO Starters SELECT id, people, count(*) as n FROM Room.std:firstunique(id) GROUP BY floor HAVING count(*) < 3 OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO FirstBefore SELECT RSTREAM floor as id, count(*) as n FROM Room.std:groupwin(floor).std:firstevent() GROUP BY floor",
    "INSERT INTO Ever SELECT floor as id, count(*) as n, max(temperature) as temperature FROM Room.win:keepall() WHERE people > 2 GROUP BY floor HAVING count(*) < 6",
    "INSERT INTO EverPaced SELECT id, people FROM Room.win:keepall() WHERE temperature > 15 OUTPUT LAST EVERY 1500 msec",
    "INSERT INTO OpeningTime SELECT floor as id, count(*) as n, sum(people) as people FROM Room.win:firsttime(3 sec) WHERE temperature > 10 GROUP BY floor",
    "INSERT INTO OpeningRooms SELECT id, people FROM Room(people > 2).std:groupwin(floor).win:firsttime(4 sec) OUTPUT LAST EVERY 1 sec",
    "INSERT INTO Rounded SELECT floor as id, Math.round(avg(temperature)) as n, sum(Math.abs(people - 5)) as people, Math.max(min(temperature), 12) as temperature FROM Room(Math.pow(temperature, .5) > 3 and id not regexp '.*[05]' and id.substring(4).length() = 1).win:time(2 sec) GROUP BY floor HAVING Math.max(count(*), 2) < 5",
    "INSERT INTO Flap SELECT a.flap as id, 'closed' as status FROM pattern [every a=Room(temperature > cast(25,double)) -> ( (Room(id=a.id, temperature > cast(25,double)) and not Room(id=a.id, temperature <= cast(25,double))) -> (Room(id=a.id, temperature > cast(25,double)) and not Room(id=a.id, temperature <= cast(25,double)))) where timer:within(10 seconds)]"
  ]}"#;

/// Two `OUTPUT FIRST` statements, one `OUTPUT EVERY`, a snapshot with an ungrouped column, grouped `LAST` and
/// `SNAPSHOT` ticks over workers, and `OUTPUT ALL` and `OUTPUT EVERY` of queries with ungrouped columns, writing one
/// stream with rows at their expiries and ticks, and readers of it that tick (a query, a pattern under `LAST`, an
/// aggregating pattern, a time batch) or see its order (a sum of each two rows): the rows of one millisecond reach
/// them in the reference's order, the groups on other workers in between, and before their ticks.
pub(super) const WRITERS_READ: &str = r#"{"host":"h",
  "in":[{"id":"Room.*","type":"Room","isPattern":true,"attributes":[
    {"name":"temperature","type":"double"},{"name":"floor","type":"string"},{"name":"people","type":"int"},
    {"name":"flap","type":"string"}]}],
  "out":[{"id":"FL","type":"LastFirst","attributes":[{"name":"n","type":"int"}]},
    {"id":"PS","type":"Pairs","attributes":[{"name":"n","type":"int"}]},
    {"id":"FP","type":"FirstPaced","attributes":[{"name":"n","type":"int"}]},
    {"id":"CP","type":"Counted","attributes":[{"name":"n","type":"int"}]},
    {"id":"BT","type":"Batched","attributes":[{"name":"n","type":"int"}]},
    {"id":"BL","type":"BatchedLast","attributes":[{"name":"n","type":"int"}]}],
  "statements":[
    "INSERT INTO Firsted SELECT floor, count(*) as n FROM Room.win:time(3 sec) GROUP BY floor OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO Firsted SELECT floor, count(*) as n FROM Room.win:time(2 sec) WHERE people > 5 GROUP BY floor OUTPUT FIRST EVERY 1 sec",
    "INSERT INTO Firsted SELECT floor, count(*) as n FROM Room.win:time(1 sec) GROUP BY floor OUTPUT EVERY 2 sec",
    "INSERT INTO Firsted SELECT floor, count(*) - people as n FROM Room.win:time(2 sec) GROUP BY floor HAVING count(*) > 0 OUTPUT SNAPSHOT EVERY 2500 msec",
    "INSERT INTO Firsted SELECT floor, count(*) as n FROM Room.win:time(2 sec) GROUP BY floor OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Firsted SELECT floor, sum(people) as n FROM Room.win:time(4 sec) WHERE people > 3 GROUP BY floor OUTPUT SNAPSHOT EVERY 1500 msec",
    "INSERT INTO Firsted SELECT floor, count(*) - people as n FROM Room.win:time(2 sec) GROUP BY floor OUTPUT ALL EVERY 1500 msec",
    "INSERT INTO Firsted SELECT floor, count(*) as n FROM Room.win:length(3) WHERE people > 4 OUTPUT EVERY 2 sec",
    "INSERT INTO Firsted SELECT floor, people - count(*) as n FROM Room.std:groupwin(floor).win:time_batch(1 sec) GROUP BY floor",
    "INSERT INTO Firsted SELECT floor, count(*) as n FROM Room.win:length_batch(2) GROUP BY floor OUTPUT LAST EVERY 1 sec",
    "INSERT INTO Firsted SELECT floor, people - count(*) as n FROM Room.win:length_batch(3) GROUP BY floor OUTPUT ALL EVERY 1500 msec",
    "INSERT INTO LastFirst SELECT floor as id, n FROM Firsted OUTPUT LAST EVERY 3 sec",
    "INSERT INTO Pairs SELECT 'pairs' as id, sum(n) as n FROM Firsted.win:length(2)",
    "INSERT INTO FirstPaced SELECT f.floor as id, f.n as n FROM pattern [every f=Firsted] OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Counted SELECT 'counted' as id, sum(f.n) as n FROM pattern [every f=Firsted] OUTPUT EVERY 1500 msec",
    "INSERT INTO Batched SELECT 'batched' as id, sum(n) as n FROM Firsted.win:time_batch(2 sec)",
    "INSERT INTO BatchedLast SELECT floor as id, n FROM Firsted.win:length_batch(2) OUTPUT LAST EVERY 1500 msec"
  ]}"#;

/// `config` with the statements that read the stream its other statements write (`Firsted`) listed first.
pub(super) fn readers_first(config: &str) -> String {
    let mut value: serde_json::Value = serde_json::from_str(config).expect("test configuration");
    let statements = value["statements"].as_array_mut().expect("statements");
    let reads = |text: &str| text.contains("Firsted") && !text.starts_with("INSERT INTO Firsted");
    statements.sort_by_key(|s| !s.as_str().is_some_and(reads));
    value.to_string()
}

pub(super) fn room_event() -> impl Strategy<Value = Incoming> {
    (0..6u8, 0..8u8, 0..45u8, 0..20i64).prop_map(|(room, floor, temperature, people)| {
        // Mostly text floors; now and then values whose text forms look alike, which must still group apart.
        let floor = match floor {
            4 => Val::Int(1),
            5 => Val::String("Int(1)".into()),
            6 => Val::Null,
            7 => Val::String("\0f1".into()),
            n => Val::String(format!("f{}", n % 3).into()),
        };
        let event = row(&[
            ("id", Val::String(format!("room{room}").into())),
            ("floor", floor),
            ("temperature", Val::Double(reading(temperature))),
            ("people", Val::Int(people)),
            ("flap", Val::String(format!("flap{room}").into())),
        ]);
        ("Room".into(), event)
    })
}

/// A temperature: mostly a quarter past a whole degree, now and then a value that is not finite, which windows must
/// forget as it leaves (`dataflow::aggregate`'s running sums count such values apart).
fn reading(n: u8) -> f64 {
    match n {
        42 => f64::NAN,
        43 => f64::INFINITY,
        44 => f64::NEG_INFINITY,
        n => f64::from(n) + 0.25,
    }
}

/// Batches at increasing milliseconds, several sharing one, with time moving on between some of them.
pub(super) fn steps(event: impl Strategy<Value = Incoming>) -> impl Strategy<Value = Vec<Step>> {
    let batch = (0..2500i64, prop::collection::vec(event, 1..4), any::<bool>());
    prop::collection::vec(batch, 1..40).prop_map(|batches| {
        let mut ms = 1_000;
        let mut steps = Vec::new();
        for (delta, events, pause) in batches {
            ms += delta;
            steps.push(Step::Push(ms, events));
            if pause {
                ms += delta / 2;
                steps.push(Step::Advance(ms));
            }
        }
        steps.push(Step::Advance(ms + 30_000));
        steps
    })
}

/// Patterns that aggregate their matches: grouped, with `WHERE` and `HAVING`, and not, with a timer.
pub(super) const AGGREGATING_PATTERNS: [&str; 2] = [
    "INSERT INTO Seen SELECT a.floor as id, count(*) as people, max(a.temperature - b.temperature) as temperature, \
     min(a.flap) as flap FROM pattern [every a=Room(temperature > 30) -> b=Room(id = a.id, temperature < 20)] \
     WHERE b.people > 2 GROUP BY a.floor HAVING count(*) != 2",
    "INSERT INTO Seen SELECT b.id as id, count(*) as people, avg(b.temperature) as temperature, a.flap as flap FROM \
     pattern [every a=Room(temperature > 35) -> (b=Room(id = a.id, temperature < 25) or timer:interval(3 sec))]",
];

/// Patterns that aggregate their matches under each output policy: fully aggregated, grouped (`LAST` with `WHERE`
/// and `HAVING`, `ALL` sorted, `SNAPSHOT` waiting with `AFTER`, `FIRST`) and not (the default, matches made at
/// timers too; `LAST`); with ungrouped columns, grouped (`ALL`, `LAST` with `HAVING`) and not (the default, `FIRST`);
/// and a reader of their rows that sees their order (each row's sum with the one before).
pub(super) const PACED_PATTERNS: [&str; 11] = [
    "INSERT INTO Seen SELECT a.floor as id, count(*) as people, max(b.temperature) as temperature, min(a.flap) as \
     flap FROM pattern [every a=Room(temperature > 30) -> b=Room(id = a.id, temperature < 20)] WHERE b.people > 2 \
     GROUP BY a.floor HAVING count(*) != 2 OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Seen SELECT a.floor as id, count(*) as people, avg(a.temperature) as temperature, max(a.flap) as \
     flap FROM pattern [every a=Room(temperature > 25)] GROUP BY a.floor OUTPUT ALL EVERY 2 sec ORDER BY people DESC",
    "INSERT INTO Seen SELECT a.floor as id, count(*) as people, sum(a.temperature) as temperature, min(a.flap) as \
     flap FROM pattern [every a=Room(people > 12)] GROUP BY a.floor OUTPUT AFTER 3 sec SNAPSHOT EVERY 2500 msec",
    "INSERT INTO Seen SELECT a.floor as id, count(*) as people, min(a.temperature) as temperature, max(a.flap) as \
     flap FROM pattern [every a=Room(temperature < 12)] GROUP BY a.floor OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO Seen SELECT 'all' as id, count(*) as people, avg(b.temperature) as temperature, max(a.flap) as flap \
     FROM pattern [every a=Room(temperature > 35) -> (b=Room(id = a.id, temperature < 25) or timer:interval(3 sec))] \
     OUTPUT EVERY 1500 msec",
    "INSERT INTO Seen SELECT 'n' as id, count(*) as people, sum(a.temperature) as temperature, min(a.flap) as flap \
     FROM pattern [every a=Room(people > 15)] OUTPUT LAST EVERY 1 sec",
    "INSERT INTO Seen SELECT a.floor as id, count(*) as people, a.temperature as temperature, a.flap as flap FROM \
     pattern [every a=Room(temperature > 28) -> b=Room(id = a.id, temperature < 22)] GROUP BY a.floor OUTPUT ALL \
     EVERY 1500 msec",
    "INSERT INTO Seen SELECT a.floor as id, count(*) as people, a.temperature as temperature, a.flap as flap FROM \
     pattern [every a=Room(people > 10)] GROUP BY a.floor HAVING count(*) > 1 OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Seen SELECT a.id as id, count(*) as people, a.temperature as temperature, a.flap as flap FROM \
     pattern [every a=Room(temperature > 20) -> b=Room(id = a.id, temperature < 15)] OUTPUT EVERY 1 sec",
    "INSERT INTO Seen SELECT a.id as id, sum(a.people) as people, a.temperature as temperature, a.flap as flap FROM \
     pattern [every a=Room(temperature > 38)] OUTPUT FIRST EVERY 1500 msec",
    "INSERT INTO Pairs SELECT sum(people) as n FROM Seen.win:length(2)",
];

/// [`PACED_PATTERNS`] in a configuration that publishes their reader's rows too.
pub(super) fn paced_patterns() -> String {
    room_to_seen(&PACED_PATTERNS).replace(r#""out":["#, PAIRS_OUT)
}

pub(super) const PAIRS_OUT: &str = r#""out":[{"id":"P","type":"Pairs","attributes":[{"name":"n","type":"int"}]},"#;

/// A random part of a pattern over rooms: followed-by, `and`, `or`, `not` anywhere, `within`, over room matches and
/// timers. With `keyed`, each match reads `id = a.id`, so the pattern is partitioned by room (after `every a=Room`);
/// without, none does. (No `every` inside: `every (every S)` doubles its instances at each event, in Esper too.)
pub(super) fn pattern_part(keyed: bool) -> impl Strategy<Value = String> {
    let room = move |(t, hot): (u8, bool)| {
        let key = if keyed { "id = a.id, " } else { "" };
        format!("Room({key}temperature {} {t})", if hot { ">" } else { "<" })
    };
    let leaf =
        prop_oneof![(5..45u8, any::<bool>()).prop_map(room), (1..4u8).prop_map(|s| format!("timer:interval({s} sec)"))];
    leaf.prop_recursive(3, 10, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(l, r)| format!("({l} -> {r})")),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| format!("({l} and {r})")),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| format!("({l} or {r})")),
            inner.clone().prop_map(|p| format!("(not {p})")),
            (inner, 1..4u8).prop_map(|(p, s)| format!("({p} where timer:within({s} sec))")),
        ]
    })
}

/// Patterns whose parts turn false, among room events, keyed by room and not: a `not` outside an `and` (with an `or`,
/// and alone after the start), an `every` restarting what turned false (a quiet spell, a `within`), an `every`
/// inside an `and` and under a `within`, and a `not` alone, true at the start.
pub(super) const TURNING_PATTERNS: [&str; 7] = [
    "INSERT INTO Seen SELECT a.id as id, b.people as people, a.temperature as temperature, a.flap as flap FROM \
     pattern [every a=Room(temperature > 30) -> (b=Room(id = a.id, temperature < 20) or not Room(id = a.id, people > \
     15))]",
    "INSERT INTO Seen SELECT a.id as id, a.people as people, a.temperature as temperature, a.flap as flap FROM \
     pattern [every a=Room(temperature > 40) -> not Room(id = a.id, temperature < 5)]",
    "INSERT INTO Seen SELECT 'calm' as id, 0 as people, 0.0 as temperature, 'f' as flap FROM pattern [every \
     (timer:interval(2 sec) and not Room(temperature > 38))]",
    "INSERT INTO Seen SELECT a.id as id, a.people as people, a.temperature as temperature, a.flap as flap FROM \
     pattern [every (a=Room(temperature > 35) where timer:within(3 sec))]",
    "INSERT INTO Seen SELECT a.id as id, b.people as people, a.temperature as temperature, b.flap as flap FROM \
     pattern [(every a=Room(temperature > 40)) and b=Room(people > 18)]",
    "INSERT INTO Seen SELECT a.id as id, b.people as people, b.temperature as temperature, a.flap as flap FROM \
     pattern [every a=Room(temperature > 30) -> ((every b=Room(id = a.id, people > 15)) where timer:within(2 sec))]",
    "INSERT INTO Seen SELECT 'none' as id, 0 as people, 0.0 as temperature, 'f' as flap FROM pattern [not \
     Room(temperature > 42)]",
];

/// Patterns that start with their statement, among room events: timers alone (counted, paced, and driving a join that
/// lists a floor's rooms every 2.5 s), a leading timer, and a quiet spell repeated, which a hot room ends.
pub(super) const STARTED_PATTERNS: [&str; 5] = [
    "INSERT INTO Seen SELECT 'tick' as id, count(*) as people, 0.0 as temperature, 'f' as flap FROM pattern [every \
     timer:interval(2300 msec)]",
    "INSERT INTO Seen SELECT a.id as id, a.people as people, a.temperature as temperature, a.flap as flap FROM \
     pattern [timer:interval(2 sec) -> every a=Room(temperature > 30)]",
    "INSERT INTO Seen SELECT 'calm' as id, 0 as people, 0.0 as temperature, 'f' as flap FROM pattern [every \
     (timer:interval(3 sec) and not Room(temperature > 38))]",
    "INSERT INTO Seen SELECT 'paced' as id, 0 as people, 0.0 as temperature, 'f' as flap FROM pattern [every \
     timer:interval(1300 msec)] OUTPUT FIRST EVERY 3 sec",
    "INSERT INTO Seen SELECT r.id as id, r.people as people, r.temperature as temperature, r.flap as flap FROM \
     pattern [every timer:interval(2500 msec)] unidirectional LEFT OUTER JOIN Room.std:unique(id) as r ON \
     r.floor = 'f1'",
];

/// Patterns under each output policy without aggregates: `FIRST`, `LAST` with `WHERE`, the default waiting with
/// `AFTER`, and `ALL` over matches made by a timer.
pub(super) fn rate_limited_patterns() -> [&'static str; 4] {
    [
        "INSERT INTO Seen SELECT a.id as id, b.people as people, a.temperature as temperature, b.flap as flap FROM \
         pattern [every a=Room(temperature > 30) -> b=Room(id = a.id, temperature < 20)] OUTPUT FIRST EVERY 3 sec",
        "INSERT INTO Seen SELECT a.id as id, b.people as people, a.temperature as temperature, b.flap as flap FROM \
         pattern [every a=Room(temperature > 30) -> b=Room(id = a.id, temperature < 20)] WHERE b.people > 4 \
         OUTPUT LAST EVERY 2 sec",
        "INSERT INTO Seen SELECT a.id as id, b.people as people, a.temperature as temperature, b.flap as flap FROM \
         pattern [every a=Room(temperature > 30) -> b=Room(id = a.id, temperature < 20)] OUTPUT AFTER 5 sec EVERY \
         1500 msec",
        "INSERT INTO Seen SELECT a.id as id, a.people as people, a.temperature as temperature, a.flap as flap FROM \
         pattern [every a=Room(temperature > 35) -> (timer:interval(2 sec) and not Room(id = a.id, temperature < 25))] \
         OUTPUT ALL EVERY 2 sec",
    ]
}

/// `SELECT DISTINCT` statements whose rows often repeat within what they make at once: a batch, a snapshot, every
/// row of an interval, a remove stream, a group's row at each event, and a pattern's matches.
pub(super) const DISTINCT: [&str; 6] = [
    "INSERT INTO Seen SELECT DISTINCT 'b' as id, people % 3 as people, 1.5 as temperature, flap FROM \
     Room.win:length_batch(4)",
    "INSERT INTO Seen SELECT DISTINCT 's' as id, max(people) % 2 as people, 2.5 as temperature, 'snap' as flap FROM \
     Room.win:time(3 sec) GROUP BY floor OUTPUT SNAPSHOT EVERY 2 sec",
    "INSERT INTO Seen SELECT DISTINCT 'a' as id, people % 2 as people, 3.5 as temperature, 'all' as flap FROM \
     Room.win:time(2 sec) OUTPUT ALL EVERY 1500 msec",
    "INSERT INTO Seen SELECT RSTREAM DISTINCT 'r' as id, people % 2 as people, 4.5 as temperature, 'gone' as flap \
     FROM Room.win:time(1 sec)",
    "INSERT INTO Seen SELECT DISTINCT 'g' as id, max(people) % 2 as people, 6.5 as temperature, 'grp' as flap FROM \
     Room.win:time(2 sec) GROUP BY floor",
    "INSERT INTO Seen SELECT DISTINCT b.id as id, b.people as people, 5.5 as temperature, 'pat' as flap FROM pattern \
     [every a=Room(temperature > 25) -> b=Room(floor = a.floor, temperature < 25)]",
];

/// Statements reading `prior(n, x)`: over no view with it in `WHERE`, under aggregates of a time window, in a length
/// window's remove stream, under an output policy, behind a view that keeps events out, over a stream another
/// statement inserts from every worker, over batches (with it in `WHERE`, and as an aggregate's argument in each
/// key's batches of `std:groupwin`), in a snapshot of the rows of a window, in snapshots of the batches being
/// collected (where they read null, in `WHERE` too), and over a named window's insert stream.
pub(super) const PRIORS: [&str; 15] = [
    "INSERT INTO Seen SELECT id, prior(1, people) as people, temperature, 's' as flap FROM Room.win:length(2) OUTPUT \
     SNAPSHOT EVERY 1500 msec",
    "CREATE WINDOW LastReading.std:unique(id) as Room",
    "INSERT INTO LastReading SELECT * FROM Room",
    "INSERT INTO Seen SELECT id, prior(1, people) as people, prior(2, temperature) as temperature, 'w' as flap FROM \
     LastReading",
    "INSERT INTO Seen SELECT 'b' as id, prior(1, people) as people, prior(2, temperature) as temperature, flap FROM \
     Room.win:length_batch(3) WHERE prior(1, temperature) > 15",
    "INSERT INTO Seen SELECT 'g' as id, count(*) as people, avg(prior(1, temperature)) as temperature, floor as flap \
     FROM Room.std:groupwin(floor).win:time_batch(2 sec) GROUP BY floor",
    "INSERT INTO Seen SELECT id, prior(1, people) as people, prior(2, temperature) as temperature, flap FROM Room \
     WHERE prior(1, temperature) > 20",
    "INSERT INTO Seen SELECT 'avg' as id, sum(prior(1, people)) as people, avg(prior(0, temperature)) as \
     temperature, floor as flap FROM Room.win:time(2 sec) GROUP BY floor",
    "INSERT INTO Seen SELECT RSTREAM id, prior(2, people) as people, temperature, flap FROM Room.win:length(3)",
    "INSERT INTO Seen SELECT id, prior(1, people) as people, temperature, 'u' as flap FROM Room.std:unique(floor) \
     OUTPUT LAST EVERY 1500 msec",
    "INSERT INTO Seen SELECT id, prior(1, people) as people, prior(1, temperature) as temperature, 'f' as flap FROM \
     Room.std:firstunique(id)",
    "INSERT INTO Hot SELECT id, people, temperature FROM Room(temperature > 20)",
    "INSERT INTO Seen SELECT id, prior(1, people) as people, temperature, 'h' as flap FROM Hot.win:length(2)",
    "INSERT INTO Seen SELECT id, prior(1, people) as people, temperature, 'c' as flap FROM \
     Room.std:groupwin(floor).win:length_batch(2) WHERE prior(1, temperature) > 15 OR temperature > 20 OUTPUT \
     SNAPSHOT EVERY 1500 msec",
    "INSERT INTO Seen SELECT 'gs' as id, count(*) as people, avg(prior(1, temperature)) as temperature, floor as \
     flap FROM Room.win:length_batch(3) WHERE prior(1, people) is null OR people > 2 GROUP BY floor OUTPUT SNAPSHOT \
     EVERY 1500 msec",
];

/// Statements reading `prev`, `prevtail` and `prevcount` over each window that keeps its events: length, time and
/// keep-all windows, under `std:groupwin` or not, batches, in `WHERE`, with aggregates and ungrouped columns, a
/// remove stream (where they read null), together with `prior`, over a stream inserted from every worker, under
/// `OUTPUT AFTER`, and with an index each row reads.
pub(super) const PREVS: [&str; 15] = [
    "INSERT INTO Seen SELECT id, prev(1, people) as people, prevtail(0, temperature) as temperature, 'l' as flap FROM \
     Room.win:length(3)",
    "INSERT INTO Seen SELECT id, prevcount(people) as people, prev(1, temperature) as temperature, floor as flap \
     FROM Room.std:groupwin(floor).win:time(2 sec)",
    "INSERT INTO Seen SELECT id, people, prev(2, temperature) as temperature, 'w' as flap FROM Room.win:time(3 sec) \
     WHERE prev(1, temperature) > 20",
    "INSERT INTO Seen SELECT RSTREAM id, prevcount(people) as people, prev(1, temperature) as temperature, 'r' as \
     flap FROM Room.win:time(2 sec)",
    "INSERT INTO Seen SELECT id, count(*) as people, prev(1, temperature) as temperature, floor as flap FROM \
     Room.win:length(4) GROUP BY floor",
    "INSERT INTO Seen SELECT 'b' as id, prevcount(people) as people, prev(1, temperature) as temperature, flap FROM \
     Room.win:length_batch(3) WHERE prev(1, temperature) > 15",
    "INSERT INTO Seen SELECT 'g' as id, count(*) as people, prevtail(1, temperature) as temperature, floor as flap \
     FROM Room.std:groupwin(floor).win:time_batch(2 sec)",
    "INSERT INTO Seen SELECT id, prevcount(people) as people, prevtail(0, temperature) as temperature, 'k' as flap \
     FROM Room.win:keepall()",
    "INSERT INTO Seen SELECT id, prior(1, people) as people, prev(1, temperature) as temperature, 'p' as flap FROM \
     Room.std:groupwin(id).win:length(2)",
    "INSERT INTO Seen SELECT RSTREAM id, people, prev(1, temperature) as temperature, 'q' as flap FROM \
     Room.win:time_batch(1 sec)",
    "INSERT INTO Hot SELECT id, people, temperature FROM Room(temperature > 20)",
    "INSERT INTO Seen SELECT id, prev(1, people) as people, temperature, 'h' as flap FROM Hot.win:length(2)",
    "INSERT INTO Seen SELECT id, prev(1, people) as people, temperature, 'a' as flap FROM Room.win:length(2) OUTPUT \
     AFTER 2 sec",
    "INSERT INTO Seen SELECT id, count(*) as people, prev(count(*) - 1, temperature) as temperature, 'c' as flap FROM \
     Room.win:time(2 sec)",
    "INSERT INTO Seen SELECT 'd' as id, people, prevtail(people, temperature) as temperature, floor as flap FROM \
     Room.std:groupwin(floor).win:length_batch(2) WHERE prev(people, people) is not null",
];

/// Statements under `OUTPUT ... EVERY n EVENTS` over each view: without aggregates (rows of a length window failing
/// `WHERE` pushing out rows that passed it, so that more leave than enter; expiries of a time window; `FIRST`; a
/// snapshot; `ORDER BY`; `DISTINCT`; every event), fully aggregated with and without groups (the default, `LAST`,
/// `FIRST` with an expiry's row, a snapshot without a data window) and with ungrouped columns (`ALL` with groups,
/// `LAST` with `HAVING`).
pub(super) const COUNTED: [&str; 14] = [
    "INSERT INTO Seen SELECT id, people, temperature, 'a' as flap FROM Room.win:length(3) WHERE temperature > 24 OUTPUT \
     EVERY 3 EVENTS",
    "INSERT INTO Seen SELECT id, people, temperature, 'l' as flap FROM Room.win:time(2 sec) OUTPUT LAST EVERY 2 EVENTS",
    "INSERT INTO Seen SELECT id, people, temperature, 'f' as flap FROM Room.win:time(2 sec) OUTPUT FIRST EVERY 3 EVENTS",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, avg(temperature) as temperature, 'g' as flap FROM \
     Room.win:time(3 sec) GROUP BY floor OUTPUT EVERY 4 EVENTS",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, sum(temperature) as temperature, 'L' as flap FROM \
     Room.std:unique(id) GROUP BY floor OUTPUT LAST EVERY 2 EVENTS",
    "INSERT INTO Seen SELECT 'all' as id, count(*) as people, max(temperature) as temperature, 'F' as flap FROM \
     Room.win:time(2 sec) OUTPUT FIRST EVERY 2 EVENTS",
    "INSERT INTO Seen SELECT id, count(*) as people, temperature, floor as flap FROM Room.win:length(4) GROUP BY floor \
     OUTPUT ALL EVERY 3 EVENTS",
    "INSERT INTO Seen SELECT id, people, temperature, 's' as flap FROM Room.win:time(2 sec) WHERE people > 1 OUTPUT \
     SNAPSHOT EVERY 2 EVENTS",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, avg(temperature) as temperature, 'S' as flap FROM Room \
     GROUP BY floor OUTPUT SNAPSHOT EVERY 3 EVENTS",
    "INSERT INTO Seen SELECT id, people, temperature, 'o' as flap FROM Room.std:groupwin(floor).win:length(2) OUTPUT \
     EVERY 3 EVENTS ORDER BY temperature DESC",
    "INSERT INTO Seen SELECT DISTINCT floor as id, people, 0.5 as temperature, 'd' as flap FROM Room OUTPUT EVERY 2 \
     EVENTS",
    "INSERT INTO Seen SELECT id, sum(people) as people, temperature, 'u' as flap FROM Room.win:time(2 sec) HAVING \
     sum(people) > 4 OUTPUT LAST EVERY 2 EVENTS",
    "INSERT INTO Seen SELECT id, people, temperature, '1' as flap FROM Room.std:lastevent() OUTPUT EVERY 1 EVENTS",
    "INSERT INTO Seen SELECT id, people, temperature, 'w' as flap FROM Room.win:length(2) WHERE people > 2 OUTPUT \
     FIRST EVERY 2 EVENTS",
];

/// Statements over `win:ext_timed` windows, timed by the rooms' `people` (in no order, so older events stay behind
/// newer ones) or `temperature` (a double truncated; NaN and infinities among them): fully aggregated with and
/// without groups, per `std:groupwin` key, the remove stream, rows of events whose timestamp is now and then null
/// (kept out), with `WHERE`, under a snapshot every 2 seconds and a count of events, and `prev` and `prevcount` per
/// key.
pub(super) const EXT_TIMED: [&str; 9] = [
    "INSERT INTO Seen SELECT 'all' as id, count(*) as people, sum(temperature) as temperature, 'e' as flap FROM \
     Room.win:ext_timed(people * 100, 1 sec)",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, avg(temperature) as temperature, 'g' as flap FROM \
     Room.std:groupwin(floor).win:ext_timed(people, 5 msec) GROUP BY floor",
    "INSERT INTO Seen SELECT RSTREAM id, people, temperature, 'r' as flap FROM Room.win:ext_timed(temperature, 10 msec)",
    "INSERT INTO Seen SELECT id, people, temperature, 'n' as flap FROM Room.win:ext_timed(case when people > 15 then \
     null else people end, 3 msec)",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, max(temperature) as temperature, 'w' as flap FROM \
     Room.win:ext_timed(people, 6 msec) WHERE temperature > 20 GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, min(temperature) as temperature, 's' as flap FROM \
     Room.win:ext_timed(people * 10, 50 msec) GROUP BY floor OUTPUT SNAPSHOT EVERY 2 sec",
    "INSERT INTO Seen SELECT id, sum(people) as people, temperature, 'c' as flap FROM Room.win:ext_timed(people, 4 \
     msec) OUTPUT LAST EVERY 2 EVENTS",
    "INSERT INTO Seen SELECT id, count(*) as people, temperature, floor as flap FROM \
     Room.std:groupwin(id).win:ext_timed(people, 7 msec) GROUP BY floor",
    "INSERT INTO Seen SELECT id, prevcount(people) as people, prev(1, temperature) as temperature, 'p' as flap FROM \
     Room.std:groupwin(floor).win:ext_timed(people, 5 msec)",
];

/// Statements over `win:time_length_batch` windows, released by count or by time, whichever is first: rows of each
/// release, fully aggregated with and without groups, per `std:groupwin` key, the remove stream with `WHERE`, grouped
/// rows with ungrouped columns, the remove stream of grouped aggregates, under a snapshot and under `LAST`, and
/// `prev` and `prior` per key.
pub(super) const TIME_LENGTH_BATCH: [&str; 9] = [
    "INSERT INTO Seen SELECT id, people, temperature, 'b' as flap FROM Room.win:time_length_batch(1 sec, 3)",
    "INSERT INTO Seen SELECT 'all' as id, count(*) as people, sum(temperature) as temperature, 'a' as flap FROM \
     Room.win:time_length_batch(2 sec, 4)",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, avg(temperature) as temperature, 'g' as flap FROM \
     Room.std:groupwin(floor).win:time_length_batch(1500 msec, 2) GROUP BY floor",
    "INSERT INTO Seen SELECT RSTREAM id, people, temperature, 'r' as flap FROM Room.win:time_length_batch(1 sec, 2) \
     WHERE temperature > 10",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, max(temperature) as temperature, 's' as flap FROM \
     Room.win:time_length_batch(1 sec, 5) GROUP BY floor OUTPUT SNAPSHOT EVERY 2 sec",
    "INSERT INTO Seen SELECT id, prev(1, people) as people, prior(1, temperature) as temperature, 'p' as flap FROM \
     Room.std:groupwin(floor).win:time_length_batch(2 sec, 3)",
    "INSERT INTO Seen SELECT id, people, temperature, 'l' as flap FROM Room.win:time_length_batch(1 sec, 4) OUTPUT \
     LAST EVERY 1500 msec",
    "INSERT INTO Seen SELECT RSTREAM floor as id, sum(people) as people, avg(temperature) as temperature, 'x' as flap \
     FROM Room.win:time_length_batch(1 sec, 3) GROUP BY floor",
    "INSERT INTO Seen SELECT id, people, avg(people) as temperature, 'c' as flap FROM Room.win:time_length_batch(500 \
     msec, 3) GROUP BY floor",
];

/// Statements over `ext:sort` windows, whose arrivals push out the row that sorts last, or themselves: rows of each
/// arrival, the remove stream with `WHERE` (a row failing it still takes its place), fully aggregated with and without
/// groups (with `WHERE`), per `std:groupwin` key and grouped by it, grouped rows with ungrouped columns, ever forms,
/// grouped under `LAST`, `ALL` and `FIRST`, both streams per key (on the workers by it), `prior`, and counts of events
/// (the rows pushed out count); and over `ext:rank` windows, whose arrivals replace the row of their key first: both
/// streams, grouped with `WHERE`, per `std:groupwin` key, and ever forms. Temperatures sort with their NaN and
/// infinities, floors with their nulls and look-alikes.
pub(super) const SORTED: [&str; 18] = [
    "INSERT INTO Seen SELECT id, people, temperature, 'i' as flap FROM Room.ext:sort(3, temperature desc)",
    "INSERT INTO Seen SELECT RSTREAM id, people, temperature, 'r' as flap FROM Room.ext:sort(2, people, temperature \
     desc) WHERE temperature > 10",
    "INSERT INTO Seen SELECT 'all' as id, count(*) as people, sum(temperature) as temperature, 'a' as flap FROM \
     Room.ext:sort(4, people desc)",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, avg(temperature) as temperature, 'g' as flap FROM \
     Room.ext:sort(3, temperature) WHERE people > 4 GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, max(people) as people, min(temperature) as temperature, 'k' as flap FROM \
     Room.std:groupwin(floor).ext:sort(2, people desc) GROUP BY floor",
    "INSERT INTO Seen SELECT id, people, avg(people) as temperature, 'c' as flap FROM Room.ext:sort(3, id, floor \
     desc) GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, countever(*) as people, maxever(temperature) as temperature, 'e' as flap \
     FROM Room.ext:sort(2, floor) GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, sum(temperature) as temperature, 'l' as flap FROM \
     Room.ext:sort(3, people) GROUP BY floor OUTPUT LAST EVERY 1 sec",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, sum(temperature) as temperature, 'o' as flap FROM \
     Room.ext:sort(2, temperature desc) GROUP BY floor OUTPUT ALL EVERY 1500 msec",
    "INSERT INTO Seen SELECT id, people, sum(people) as temperature, 'f' as flap FROM Room.ext:sort(3, people) \
     GROUP BY floor OUTPUT FIRST EVERY 1 sec",
    "INSERT INTO Seen SELECT IRSTREAM id, people, temperature, 'b' as flap FROM \
     Room.std:groupwin(floor).ext:sort(1, temperature desc)",
    "INSERT INTO Seen SELECT id, prior(1, people) as people, temperature, 'p' as flap FROM Room.ext:sort(2, people) \
     WHERE people > 3",
    "INSERT INTO Seen SELECT id, people, temperature, 'n' as flap FROM Room.ext:sort(2, people desc) OUTPUT EVERY 3 \
     EVENTS",
    "INSERT INTO Seen SELECT 'all' as id, count(*) as people, min(temperature) as temperature, 'm' as flap FROM \
     Room.ext:sort(3, temperature) OUTPUT LAST EVERY 2 EVENTS",
    "INSERT INTO Seen SELECT IRSTREAM id, people, temperature, 'R' as flap FROM Room.ext:rank(id, 3, temperature \
     desc)",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, sum(temperature) as temperature, 'G' as flap FROM \
     Room.ext:rank(id, floor, 4, people, temperature) WHERE people > 2 GROUP BY floor",
    "INSERT INTO Seen SELECT RSTREAM id, people, temperature, 'W' as flap FROM Room.std:groupwin(floor).ext:rank(id, 2, \
     people desc)",
    "INSERT INTO Seen SELECT id, countever(*) as people, avg(temperature) as temperature, 'E' as flap FROM \
     Room.ext:rank(floor, 2, people) GROUP BY id",
];

/// Statements over `ext:time_order` and `ext:timetolive` windows, timed by the rooms' `stamp` ([`stamped_steps`]: before
/// the window's tail, so that the arrival leaves at once, on it, and after the clock, now and then null): rows of each
/// arrival, the remove stream with `WHERE`, fully aggregated with and without groups (with `WHERE`), per
/// `std:groupwin` key and grouped by it, grouped rows with ungrouped columns, ever forms, grouped under `LAST`, `ALL`
/// and `FIRST`, both streams per key (on the workers by it), `prior`, counts of events, and the remove stream of
/// grouped aggregates.
pub(super) const TIME_ORDER: [&str; 15] = [
    "INSERT INTO Seen SELECT id, people, temperature, 'i' as flap FROM Room.ext:time_order(stamp, 2 sec)",
    "INSERT INTO Seen SELECT RSTREAM id, people, temperature, 'r' as flap FROM Room.ext:time_order(stamp, 1 sec) \
     WHERE temperature > 10",
    "INSERT INTO Seen SELECT 'all' as id, count(*) as people, sum(temperature) as temperature, 'a' as flap FROM \
     Room.ext:time_order(stamp, 3 sec)",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, avg(temperature) as temperature, 'g' as flap FROM \
     Room.ext:time_order(stamp, 2 sec) WHERE people > 4 GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, max(people) as people, min(temperature) as temperature, 'k' as flap FROM \
     Room.std:groupwin(floor).ext:time_order(stamp, 1500 msec) GROUP BY floor",
    "INSERT INTO Seen SELECT id, people, avg(people) as temperature, 'c' as flap FROM Room.ext:timetolive(stamp) \
     GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, countever(*) as people, maxever(temperature) as temperature, 'e' as flap \
     FROM Room.ext:time_order(stamp, 1 sec) GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, sum(temperature) as temperature, 'l' as flap FROM \
     Room.ext:time_order(stamp, 2 sec) GROUP BY floor OUTPUT LAST EVERY 1 sec",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, sum(temperature) as temperature, 'o' as flap FROM \
     Room.ext:time_order(stamp, 1 sec) GROUP BY floor OUTPUT ALL EVERY 1500 msec",
    "INSERT INTO Seen SELECT id, people, sum(people) as temperature, 'f' as flap FROM Room.ext:time_order(stamp, 2 \
     sec) GROUP BY floor OUTPUT FIRST EVERY 1 sec",
    "INSERT INTO Seen SELECT IRSTREAM id, people, temperature, 'b' as flap FROM \
     Room.std:groupwin(floor).ext:timetolive(stamp)",
    "INSERT INTO Seen SELECT id, prior(1, people) as people, temperature, 'p' as flap FROM \
     Room.ext:time_order(stamp, 2 sec) WHERE people > 3",
    "INSERT INTO Seen SELECT id, people, temperature, 'n' as flap FROM Room.ext:time_order(stamp, 1 sec) OUTPUT \
     EVERY 3 EVENTS",
    "INSERT INTO Seen SELECT 'all' as id, count(*) as people, min(temperature) as temperature, 'm' as flap FROM \
     Room.ext:timetolive(stamp) OUTPUT LAST EVERY 2 EVENTS",
    "INSERT INTO Seen SELECT RSTREAM floor as id, sum(people) as people, avg(temperature) as temperature, 'x' as flap \
     FROM Room.ext:time_order(stamp, 2 sec) GROUP BY floor",
];

/// Statements over `win:time_accum` windows, whose events all leave once their period passes without an arrival (of
/// their `std:groupwin` key): rows of each arrival, the remove stream with `WHERE`, fully aggregated with and without
/// groups (with `WHERE`), per `std:groupwin` key and grouped by it, grouped rows with ungrouped columns, ever forms,
/// grouped under `LAST`, `ALL` and `FIRST`, both streams per key (on the workers by it), `prior`, counts of events,
/// the remove stream of grouped aggregates, snapshots of groups and of rows, and the previous-event functions, alone
/// and per key with both streams.
pub(super) const TIME_ACCUM: [&str; 19] = [
    "INSERT INTO Seen SELECT id, people, temperature, 'i' as flap FROM Room.win:time_accum(2 sec)",
    "INSERT INTO Seen SELECT RSTREAM id, people, temperature, 'r' as flap FROM Room.win:time_accum(1 sec) WHERE \
     temperature > 10",
    "INSERT INTO Seen SELECT 'all' as id, count(*) as people, sum(temperature) as temperature, 'a' as flap FROM \
     Room.win:time_accum(3 sec)",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, avg(temperature) as temperature, 'g' as flap FROM \
     Room.win:time_accum(2 sec) WHERE people > 4 GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, max(people) as people, min(temperature) as temperature, 'k' as flap FROM \
     Room.std:groupwin(floor).win:time_accum(1500 msec) GROUP BY floor",
    "INSERT INTO Seen SELECT id, people, avg(people) as temperature, 'c' as flap FROM Room.win:time_accum(1 sec) \
     GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, countever(*) as people, maxever(temperature) as temperature, 'e' as flap \
     FROM Room.win:time_accum(1 sec) GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, sum(temperature) as temperature, 'l' as flap FROM \
     Room.win:time_accum(2 sec) GROUP BY floor OUTPUT LAST EVERY 1 sec",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, sum(temperature) as temperature, 'o' as flap FROM \
     Room.win:time_accum(1 sec) GROUP BY floor OUTPUT ALL EVERY 1500 msec",
    "INSERT INTO Seen SELECT id, people, sum(people) as temperature, 'f' as flap FROM Room.win:time_accum(2 sec) \
     GROUP BY floor OUTPUT FIRST EVERY 1 sec",
    "INSERT INTO Seen SELECT IRSTREAM id, people, temperature, 'b' as flap FROM \
     Room.std:groupwin(id).win:time_accum(1 sec)",
    "INSERT INTO Seen SELECT id, prior(1, people) as people, temperature, 'p' as flap FROM Room.win:time_accum(2 sec) \
     WHERE people > 3",
    "INSERT INTO Seen SELECT id, people, temperature, 'n' as flap FROM Room.win:time_accum(1 sec) OUTPUT EVERY 3 \
     EVENTS",
    "INSERT INTO Seen SELECT 'all' as id, count(*) as people, min(temperature) as temperature, 'm' as flap FROM \
     Room.win:time_accum(2 sec) OUTPUT LAST EVERY 2 EVENTS",
    "INSERT INTO Seen SELECT RSTREAM floor as id, sum(people) as people, avg(temperature) as temperature, 'x' as flap \
     FROM Room.win:time_accum(2 sec) GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, max(temperature) as temperature, 's' as flap FROM \
     Room.win:time_accum(1 sec) GROUP BY floor OUTPUT SNAPSHOT EVERY 2 sec",
    "INSERT INTO Seen SELECT id, people, temperature, 'S' as flap FROM Room.win:time_accum(2 sec) WHERE people > 5 \
     OUTPUT SNAPSHOT EVERY 1500 msec",
    "INSERT INTO Seen SELECT id, prev(1, people) as people, prevtail(temperature) as temperature, 'v' as flap FROM \
     Room.win:time_accum(1 sec)",
    "INSERT INTO Seen SELECT IRSTREAM id, prevcount(people) as people, prev(2, temperature) as temperature, 'w' as \
     flap FROM Room.std:groupwin(floor).win:time_accum(1500 msec)",
];

/// `rate` over each kind of window whose rows leave in the order they came, timed by the rooms' `stamp`
/// ([`stamped_steps`]: out of order, at times one stamp twice, now and then null) or `people`: with and without the
/// amount, with and without groups (with `WHERE`), per row, over a time, a length, an externally timed, an
/// accumulating and a keep-all window and over batches, under `LAST`, `ALL`, `FIRST` and a snapshot, with `HAVING`,
/// the remove stream of rows and of grouped aggregates, and per `std:groupwin` key grouped by it.
pub(super) const RATES: [&str; 17] = [
    "INSERT INTO Seen SELECT 'l' as id, count(*) as people, rate(stamp) as temperature, 'l' as flap FROM \
     Room.win:length(3)",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, rate(stamp, people) as temperature, 't' as flap FROM \
     Room.win:time(2 sec) GROUP BY floor",
    "INSERT INTO Seen SELECT 'e' as id, count(*) as people, rate(stamp, temperature) as temperature, 'e' as flap \
     FROM Room.win:ext_timed(stamp, 1 sec)",
    "INSERT INTO Seen SELECT id, people, rate(stamp) as temperature, 'r' as flap FROM Room.win:time(1 sec) WHERE \
     temperature > 10",
    "INSERT INTO Seen SELECT 'b' as id, count(*) as people, rate(stamp) as temperature, 'b' as flap FROM \
     Room.win:length_batch(2)",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, rate(stamp, people) as temperature, 'tb' as flap FROM \
     Room.win:time_batch(1 sec) GROUP BY floor",
    "INSERT INTO Seen SELECT 'a' as id, count(*) as people, rate(stamp) as temperature, 'a' as flap FROM \
     Room.win:time_accum(1 sec)",
    "INSERT INTO Seen SELECT 'k' as id, count(*) as people, rate(stamp) as temperature, 'k' as flap FROM \
     Room.win:keepall()",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, rate(cast(people, long)) as temperature, 'p' as \
     flap FROM Room.win:length(2) GROUP BY floor OUTPUT LAST EVERY 1500 msec",
    "INSERT INTO Seen SELECT 'o' as id, count(*) as people, rate(stamp, people) as temperature, 'o' as flap FROM \
     Room.win:time(1 sec) OUTPUT ALL EVERY 2 sec",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, rate(stamp) as temperature, 's' as flap FROM \
     Room.win:time(1 sec) GROUP BY floor OUTPUT SNAPSHOT EVERY 2 sec",
    "INSERT INTO Seen SELECT 'f' as id, count(*) as people, rate(stamp) as temperature, 'f' as flap FROM \
     Room.win:length(2) HAVING rate(stamp) > 1 OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO Seen SELECT RSTREAM id, people, rate(stamp) as temperature, 'x' as flap FROM Room.win:length(2)",
    "INSERT INTO Seen SELECT RSTREAM floor as id, count(*) as people, rate(stamp, people) as temperature, 'y' as flap \
     FROM Room.win:time(2 sec) GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, rate(stamp) as temperature, 'g' as flap FROM \
     Room.std:groupwin(floor).win:length(2) GROUP BY floor",
    "INSERT INTO Seen SELECT id, count(*) as people, rate(stamp, people) as temperature, floor as flap FROM \
     Room.std:groupwin(floor).win:time_batch(1 sec) GROUP BY floor, id",
    "INSERT INTO Seen SELECT RSTREAM id, count(*) as people, rate(stamp) as temperature, 'z' as flap FROM \
     Room.std:groupwin(id).win:time(1500 msec) GROUP BY id",
];

/// `current_timestamp()` ([`stamped_steps`]): in a stream filter, `WHERE`, `HAVING` and select lists; per event, at a
/// time window's expiries and in its remove stream, at batch releases, in a pattern's filter and at its timer, in
/// an aggregating pattern, under `OUTPUT FIRST` and `AFTER`, at the ticks of fully aggregated queries (`LAST`,
/// `SNAPSHOT`, `ALL` with groups, and `LAST` without), in stateless queries whose rows a query and a pattern read,
/// in a merge's condition and actions, and in a join's `ON` and select list.
pub(super) const CLOCKED: [&str; 26] = [
    "INSERT INTO Seen SELECT id, people, current_timestamp() as temperature, 'c' as flap FROM Room(stamp < \
     current_timestamp) WHERE current_timestamp - stamp < 2000",
    "INSERT INTO Seen SELECT 'w' as id, count(*) as people, current_timestamp() - max(stamp) as temperature, 'w' as \
     flap FROM Room.win:time(2 sec) HAVING current_timestamp() > min(stamp)",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, current_timestamp() as temperature, 'l' as flap FROM \
     Room.win:time(3 sec) GROUP BY floor OUTPUT LAST EVERY 1500 msec",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, current_timestamp() as temperature, 's' as flap FROM \
     Room.win:length(3) GROUP BY floor OUTPUT SNAPSHOT EVERY 2 sec",
    "INSERT INTO Seen SELECT floor as id, sum(people) as people, current_timestamp() + avg(temperature) as \
     temperature, 'a' as flap FROM Room.win:time(2 sec) GROUP BY floor HAVING current_timestamp() % 2 = 0 OUTPUT \
     ALL EVERY 1 sec",
    "INSERT INTO Seen SELECT 'u' as id, count(*) as people, current_timestamp() as temperature, 'u' as flap FROM \
     Room.win:length(3) OUTPUT LAST EVERY 1 sec",
    "INSERT INTO Seen SELECT id, people, current_timestamp() as temperature, 'f' as flap FROM Room OUTPUT FIRST \
     EVERY 2 sec",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, current_timestamp() as temperature, 'b' as flap FROM \
     Room.win:time_batch(1 sec) GROUP BY floor",
    "INSERT INTO Seen SELECT id, people, current_timestamp() as temperature, 'n' as flap FROM \
     Room.win:length_batch(2) WHERE people > 3",
    "INSERT INTO Seen SELECT a.id as id, a.people as people, current_timestamp() as temperature, 'p' as flap FROM \
     pattern [every a=Room(temperature > 30) -> timer:interval(1 sec)]",
    "INSERT INTO Seen SELECT b.id as id, b.people as people, current_timestamp() - a.stamp as temperature, 'q' as \
     flap FROM pattern [every a=Room -> b=Room(floor = a.floor, stamp < current_timestamp())]",
    "INSERT INTO Seen SELECT a.floor as id, count(*) as people, current_timestamp() as temperature, 'g' as flap \
     FROM pattern [every a=Room(temperature > 30)] GROUP BY a.floor",
    "INSERT INTO Seen SELECT RSTREAM id, people, current_timestamp() as temperature, 'x' as flap FROM \
     Room.win:time(1 sec)",
    "INSERT INTO Seen SELECT id, people, current_timestamp() - stamp as temperature, 'e' as flap FROM \
     Room.win:ext_timed(stamp, 1 sec) ORDER BY current_timestamp() - stamp",
    "INSERT INTO Seen SELECT IRSTREAM id, people, current_timestamp() as temperature, 'i' as flap FROM \
     Room.win:length(2)",
    "INSERT INTO Seen SELECT id, people, current_timestamp() as temperature, 'z' as flap FROM Room OUTPUT AFTER 2 sec",
    "INSERT INTO Clocked SELECT id, floor, current_timestamp() as at FROM Room WHERE people > 2",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, max(at) as temperature, 'k' as flap FROM \
     Clocked.win:length(2) GROUP BY floor",
    "INSERT INTO Paired SELECT id, current_timestamp() as at FROM Room(temperature > 20)",
    "INSERT INTO Seen SELECT a.id as id, cast(b.at - a.at, int) as people, b.at as temperature, 'h' as flap FROM \
     pattern [every a=Paired -> b=Paired(id = a.id)]",
    "CREATE WINDOW Stamped.std:unique(id) as Room",
    "INSERT INTO Stamped SELECT * FROM Room(people > 1)",
    "ON Room(temperature > 30) r MERGE Stamped w WHERE w.id = r.id AND w.stamp < current_timestamp() WHEN MATCHED \
     AND r.people > 5 THEN UPDATE SET stamp = current_timestamp() - 1 WHEN NOT MATCHED THEN INSERT SELECT r.id as \
     id, r.floor as floor, current_timestamp() as stamp",
    "ON Room(people > 12) r MERGE Stamped w WHERE w.stamp = current_timestamp() - 1 WHEN MATCHED THEN DELETE",
    "INSERT INTO Seen SELECT id, people, cast(stamp, double) as temperature, 'm' as flap FROM Stamped",
    "INSERT INTO Seen SELECT r.id as id, r.people as people, current_timestamp() - l.at as temperature, 'j' as \
     flap FROM Room(people > 8) as r unidirectional LEFT OUTER JOIN Clocked.std:groupwin(floor).std:lastevent() as \
     l ON l.floor = r.floor AND l.at < current_timestamp()",
];

/// A stateless query reading `current_timestamp()` alone on its stream, which the pattern reading its rows runs in
/// its own operator (`Program::fuses`).
pub(super) const CLOCKED_FUSED: [&str; 2] = [
    "INSERT INTO Paired SELECT id, current_timestamp() as at FROM Room(temperature > 20)",
    "INSERT INTO Seen SELECT a.id as id, cast(b.at - a.at, int) as people, b.at as temperature, 'h' as flap FROM \
     pattern [every a=Paired -> b=Paired(id = a.id)]",
];

/// [`steps`] whose rooms each carry a `stamp`, a `long`: the millisecond they are pushed at moved by up to 3 seconds
/// back or 4 ahead, often onto the tail of a window of [`TIME_ORDER`] or just after it, now and then null.
pub(super) fn stamped_steps() -> impl Strategy<Value = Vec<Step>> {
    let tails = prop::sample::select(vec![-3000, -2999, -2000, -1999, -1500, -1499, -1000, -999, 0, 1]);
    let offset = prop_oneof![4 => (-3000..4000i64).prop_map(Some), 2 => tails.prop_map(Some), 1 => Just(None)];
    (steps(room_event()), prop::collection::vec(offset, 1..64)).prop_map(|(steps, offsets)| {
        let mut offsets = offsets.into_iter().cycle();
        let mut stamped = |ms: i64, (stream, mut row): Incoming| {
            let offset = offsets.next().expect("cycles");
            row.insert("stamp", offset.map_or(Val::Null, |by| Val::Int(ms + by)));
            (stream, row)
        };
        (steps.into_iter())
            .map(|step| match step {
                Step::Push(ms, events) => Step::Push(ms, events.into_iter().map(|e| stamped(ms, e)).collect()),
                advance => advance,
            })
            .collect()
    })
}

/// Statements over `win:ext_timed_batch` windows, timed by the rooms' `people` (in no order, so an event older than
/// its batch's oldest joins it) or `temperature` (a double truncated; NaN and infinities among them): rows of each
/// release, fully aggregated with and without groups, per `std:groupwin` key with a reference point after every
/// timestamp, the remove stream, rows and grouped aggregates of what a release replaces, events whose timestamp is
/// now and then null (kept out), with `WHERE`, under a snapshot and under `LAST` every second, and `prev`,
/// `prevcount`, `prior`, `first` and `last`.
pub(super) const EXT_TIMED_BATCH: [&str; 12] = [
    "INSERT INTO Seen SELECT id, people, temperature, 'b' as flap FROM Room.win:ext_timed_batch(people, 5 msec)",
    "INSERT INTO Seen SELECT 'all' as id, count(*) as people, sum(temperature) as temperature, 'a' as flap FROM \
     Room.win:ext_timed_batch(people * 100, 1 sec)",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, avg(temperature) as temperature, 'g' as flap FROM \
     Room.std:groupwin(floor).win:ext_timed_batch(people, 4 msec, 100) GROUP BY floor",
    "INSERT INTO Seen SELECT RSTREAM id, people, temperature, 'r' as flap FROM Room.win:ext_timed_batch(temperature, \
     10 msec, 3)",
    "INSERT INTO Seen SELECT id, people, temperature, 'n' as flap FROM Room.win:ext_timed_batch(case when people > 15 \
     then null else people end, 3 msec)",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, max(temperature) as temperature, 'w' as flap FROM \
     Room.win:ext_timed_batch(people, 6 msec) WHERE temperature > 20 GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, min(temperature) as temperature, 's' as flap FROM \
     Room.win:ext_timed_batch(people * 10, 50 msec) GROUP BY floor OUTPUT SNAPSHOT EVERY 2 sec",
    "INSERT INTO Seen SELECT id, prevcount(people) as people, prev(1, temperature) as temperature, 'p' as flap FROM \
     Room.std:groupwin(floor).win:ext_timed_batch(people, 5 msec)",
    "INSERT INTO Seen SELECT id, prior(1, people) as people, temperature, 'q' as flap FROM \
     Room.win:ext_timed_batch(people, 4 msec)",
    "INSERT INTO Seen SELECT floor as id, first(people) as people, last(temperature) as temperature, 'f' as flap FROM \
     Room.win:ext_timed_batch(people, 5 msec) GROUP BY floor",
    "INSERT INTO Seen SELECT id, people, temperature, 'l' as flap FROM Room.win:ext_timed_batch(people, 3 msec) OUTPUT \
     LAST EVERY 1 sec",
    "INSERT INTO Seen SELECT RSTREAM floor as id, sum(people) as people, avg(temperature) as temperature, 'x' as flap \
     FROM Room.win:ext_timed_batch(people, 4 msec) GROUP BY floor",
];

/// `first` and `last` over each kind of view and policy that reads them: a time window's rise per floor, indexes into
/// a length window, a unique view letting rows go from the middle of a floor's, `std:groupwin` keys other than the
/// groups, an externally timed window, no window (their ever forms) and `win:keepall`, nulls (`CASE`) and `WHERE`
/// with ungrouped columns, a snapshot, `SELECT RSTREAM` per row and fully aggregated under a policy (rows expiring,
/// and displaced from another group than the arrival's), `OUTPUT FIRST` of rows leaving, a pattern's matches, and
/// batches (per `std:groupwin` key, a group's rows entering in the order the keys release them).
pub(super) const FIRST_LAST: [&str; 16] = [
    "INSERT INTO Seen SELECT floor as id, count(*) as people, last(temperature) - first(temperature) as temperature, \
     't' as flap FROM Room.win:time(3 sec) GROUP BY floor",
    "INSERT INTO Seen SELECT 'all' as id, first(people, 1) as people, last(temperature, 2) as temperature, 'l' as flap \
     FROM Room.win:length(4)",
    "INSERT INTO Seen SELECT floor as id, first(people) as people, last(temperature, 1) as temperature, 'u' as flap \
     FROM Room.std:unique(id) GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, last(people, 1) as people, first(temperature, 1) as temperature, 'g' as flap \
     FROM Room.std:groupwin(id).win:length(2) GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, first(people) as people, last(temperature) as temperature, 'e' as flap FROM \
     Room.win:ext_timed(people, 5 msec) GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, first(people) as people, last(temperature) as temperature, 'v' as flap FROM \
     Room GROUP BY floor",
    "INSERT INTO Seen SELECT 'k' as id, first(people, 2) as people, last(temperature, 3) as temperature, 'k' as flap \
     FROM Room.win:keepall()",
    "INSERT INTO Seen SELECT id, first(case when people > 12 then null else people end) as people, temperature, \
     last(flap) as flap FROM Room.win:length(3) WHERE temperature > 10 GROUP BY floor",
    "INSERT INTO Seen SELECT id, first(people) as people, last(temperature) as temperature, 's' as flap FROM \
     Room.win:time(4 sec) OUTPUT SNAPSHOT EVERY 2 sec",
    "INSERT INTO Seen SELECT RSTREAM id, last(people) as people, first(temperature) as temperature, 'r' as flap FROM \
     Room.win:length(3) GROUP BY floor",
    "INSERT INTO Seen SELECT RSTREAM floor as id, first(people) as people, last(temperature) as temperature, 'b' as \
     flap FROM Room.win:time(5 sec) GROUP BY floor OUTPUT ALL EVERY 3 sec",
    "INSERT INTO Seen SELECT RSTREAM floor as id, first(people) as people, last(temperature) as temperature, 'd' as \
     flap FROM Room.win:length(3) GROUP BY floor OUTPUT ALL EVERY 3 sec",
    "INSERT INTO Seen SELECT id, first(people) as people, last(temperature) as temperature, 'o' as flap FROM \
     Room.std:groupwin(id).win:length(2) GROUP BY floor OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO Seen SELECT r.floor as id, first(r.people) as people, last(r.temperature) as temperature, 'p' as flap \
     FROM pattern [every r=Room(temperature > 20)] GROUP BY r.floor",
    "INSERT INTO Seen SELECT floor as id, first(people) as people, last(temperature, 1) as temperature, 'h' as flap \
     FROM Room.win:length_batch(3) GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, last(people) as people, first(temperature) as temperature, 'i' as flap FROM \
     Room.std:groupwin(id).win:time_batch(2 sec) GROUP BY floor",
];

/// `nth(x, n)` where no row leaves (the `n`-th newest row ever: grouped, nulls, under a policy and a snapshot, over a
/// pattern's matches, and `nth(x, 0)`, `lastever`) and over data windows, where it is `last(x, n)` (a time window, a
/// batch, and a snapshot of rows with ungrouped columns).
pub(super) const NTHS: [&str; 8] = [
    "INSERT INTO Seen SELECT floor as id, nth(people, 1) as people, nth(temperature, 2) as temperature, 'n' as flap \
     FROM Room GROUP BY floor",
    "INSERT INTO Seen SELECT 'v' as id, nth(case when people > 12 then null else people end, 1) as people, \
     nth(temperature, 0) as temperature, nth(flap, 3) as flap FROM Room",
    "INSERT INTO Seen SELECT floor as id, nth(people, 1) as people, nth(temperature, 1) as temperature, 'o' as flap \
     FROM Room GROUP BY floor OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Seen SELECT 's' as id, nth(people, 2) as people, nth(temperature, 1) as temperature, 's' as flap \
     FROM Room OUTPUT SNAPSHOT EVERY 2 sec",
    "INSERT INTO Seen SELECT r.floor as id, nth(r.people, 1) as people, nth(r.temperature, 2) as temperature, 'p' as \
     flap FROM pattern [every r=Room(temperature > 20)] GROUP BY r.floor",
    "INSERT INTO Seen SELECT 'w' as id, nth(people, 1) as people, nth(temperature, 2) as temperature, 'w' as flap \
     FROM Room.win:time(2 sec)",
    "INSERT INTO Seen SELECT floor as id, nth(people, 1) as people, nth(temperature, 1) as temperature, 'b' as flap \
     FROM Room.win:length_batch(3) GROUP BY floor",
    "INSERT INTO Seen SELECT id, nth(people, 1) as people, temperature, 'su' as flap FROM Room.win:length(3) OUTPUT \
     SNAPSHOT EVERY 2 sec",
];

/// The "ever" aggregates over each kind of view and policy: without `GROUP BY` over a time, a length, a unique, an
/// externally timed and a keep-all window and over batches (of `std:groupwin` keys too), with filters, nulls and
/// `WHERE`, per row and fully aggregated, under each output policy (by time and by count), a snapshot, `SELECT
/// RSTREAM` per row and fully aggregated, and `HAVING`; per group over no window and over a pattern's matches, where
/// they are the plain aggregates; and `leaving()` under a policy, in a remove stream with `WHERE`, and over batches
/// with ungrouped columns.
pub(super) const EVERS: [&str; 20] = [
    "INSERT INTO Seen SELECT 'a' as id, countever(*) as people, maxever(temperature) - minever(temperature) as \
     temperature, 't' as flap FROM Room.win:time(2 sec)",
    "INSERT INTO Seen SELECT 'l' as id, firstever(case when people > 12 then null else people end) as people, \
     lastever(temperature) as temperature, lastever(flap) as flap FROM Room.win:length(2)",
    "INSERT INTO Seen SELECT 'u' as id, countever(people, temperature > 20) as people, fminever(temperature, people > \
     10) as temperature, 'u' as flap FROM Room.std:unique(floor)",
    "INSERT INTO Seen SELECT id, countever(*) as people, fmaxever(temperature, people > 8) as temperature, flap FROM \
     Room.win:length(3) WHERE temperature > 10",
    "INSERT INTO Seen SELECT 'p' as id, countever(*) as people, minever(temperature) as temperature, 'p' as flap FROM \
     Room.win:time(1 sec) OUTPUT LAST EVERY 1500 msec",
    "INSERT INTO Seen SELECT 's' as id, countever(*) as people, maxever(temperature) as temperature, 's' as flap FROM \
     Room.win:time(1 sec) OUTPUT SNAPSHOT EVERY 2 sec",
    "INSERT INTO Seen SELECT RSTREAM 'r' as id, countever(*) as people, maxever(temperature) as temperature, 'r' as \
     flap FROM Room.win:length(2)",
    "INSERT INTO Seen SELECT RSTREAM id, countever(*) as people, minever(temperature) as temperature, flap FROM \
     Room.win:time(1 sec)",
    "INSERT INTO Seen SELECT 'f' as id, countever(*) as people, lastever(temperature) as temperature, 'f' as flap FROM \
     Room.win:length(2) OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO Seen SELECT 'h' as id, countever(*) as people, maxever(temperature) as temperature, 'h' as flap FROM \
     Room.win:time(1 sec) HAVING maxever(temperature) > 25 OUTPUT ALL EVERY 3 EVENTS",
    "INSERT INTO Seen SELECT 'b' as id, countever(*) as people, minever(temperature) as temperature, 'b' as flap FROM \
     Room.win:length_batch(2)",
    "INSERT INTO Seen SELECT 'tb' as id, countever(*) as people, maxever(temperature) as temperature, firstever(id) as \
     flap FROM Room.std:groupwin(floor).win:time_batch(2 sec)",
    "INSERT INTO Seen SELECT 'e' as id, countever(*) as people, maxever(temperature) as temperature, 'e' as flap FROM \
     Room.win:ext_timed(people, 5 msec)",
    "INSERT INTO Seen SELECT 'k' as id, countever(*) as people, minever(temperature) as temperature, 'k' as flap FROM \
     Room.win:keepall()",
    "INSERT INTO Seen SELECT floor as id, countever(*) as people, maxever(temperature) as temperature, 'n' as flap \
     FROM Room GROUP BY floor",
    "INSERT INTO Seen SELECT r.floor as id, countever(*) as people, fminever(r.temperature, r.people > 10) as \
     temperature, 'm' as flap FROM pattern [every r=Room(temperature > 20)] GROUP BY r.floor",
    "INSERT INTO Seen SELECT 'lt' as id, count(*) as people, avg(temperature) as temperature, case when leaving() \
     then 'left' else 'none' end as flap FROM Room.win:time(1 sec) OUTPUT LAST EVERY 1500 msec",
    "INSERT INTO Seen SELECT RSTREAM 'lr' as id, count(*) as people, 1.5 as temperature, case when leaving() then \
     'left' else 'none' end as flap FROM Room.win:length(2) WHERE temperature > 10",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, 2.5 as temperature, case when leaving() then 'left' \
     else 'none' end as flap FROM Room.win:length_batch(2)",
    "INSERT INTO Seen SELECT RSTREAM 'ra' as id, countever(*) as people, maxever(temperature) as temperature, 'ra' as \
     flap FROM Room.win:time(1 sec) OUTPUT ALL EVERY 2 sec",
];

/// The "ever" aggregates per group over a data window, whose groups start afresh at the statement's next row after
/// their last one left: over a time, a length and a unique window and over batches (of `std:groupwin` keys too), per
/// row and fully aggregated, with `WHERE`, under each output policy, a snapshot, `SELECT RSTREAM` per row and fully
/// aggregated (under a policy too), and `leaving()`.
pub(super) const GROUPED_EVERS: [&str; 14] = [
    "INSERT INTO Seen SELECT floor as id, countever(*) as people, maxever(temperature) as temperature, 't' as flap \
     FROM Room.win:time(1 sec) GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, countever(*) as people, minever(temperature) as temperature, firstever(flap) \
     as flap FROM Room.win:length(2) GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, countever(*) as people, maxever(temperature) as temperature, 'p' as flap \
     FROM Room.win:time(1 sec) GROUP BY floor OUTPUT LAST EVERY 1500 msec",
    "INSERT INTO Seen SELECT floor as id, countever(*) as people, lastever(temperature) as temperature, 'a' as flap \
     FROM Room.win:time(1 sec) GROUP BY floor OUTPUT ALL EVERY 2 sec",
    "INSERT INTO Seen SELECT RSTREAM floor as id, countever(*) as people, maxever(temperature) as temperature, 'r' as \
     flap FROM Room.win:length(2) GROUP BY floor",
    "INSERT INTO Seen SELECT RSTREAM id, countever(*) as people, minever(temperature) as temperature, flap FROM \
     Room.win:time(1 sec) GROUP BY floor",
    "INSERT INTO Seen SELECT id, countever(*) as people, maxever(temperature) as temperature, flap FROM \
     Room.win:length(3) WHERE temperature > 10 GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, countever(*) as people, minever(temperature) as temperature, 'b' as flap \
     FROM Room.win:length_batch(2) GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, countever(*) as people, maxever(temperature) as temperature, 'tb' as flap \
     FROM Room.std:groupwin(id).win:time_batch(2 sec) GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, 2.5 as temperature, case when leaving() then 'left' \
     else 'none' end as flap FROM Room.win:length(2) GROUP BY floor",
    "INSERT INTO Seen SELECT floor as id, countever(*) as people, maxever(temperature) as temperature, 'f' as flap \
     FROM Room.win:length(2) GROUP BY floor OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO Seen SELECT floor as id, countever(*) as people, maxever(temperature) as temperature, 'u' as flap \
     FROM Room.std:unique(id) GROUP BY floor",
    "INSERT INTO Seen SELECT RSTREAM floor as id, countever(*) as people, maxever(temperature) as temperature, 'ra' \
     as flap FROM Room.win:time(1 sec) GROUP BY floor OUTPUT ALL EVERY 2 sec",
    "INSERT INTO Seen SELECT floor as id, countever(*) as people, minever(temperature) as temperature, 's' as flap \
     FROM Room.win:time(1 sec) GROUP BY floor OUTPUT SNAPSHOT EVERY 2 sec",
];

/// [`JOINS`] with `DISTINCT` on the join that finds several rows of a shutter (a time window), and [`RATED_JOINS`]'s
/// pattern-driven join under `OUTPUT ALL`: its rows of a tick compared whole.
pub(super) fn distinct_joins() -> String {
    let several = "INSERT INTO Log SELECT c.shutter as id, S.status as seen FROM Cmd as c unidirectional LEFT OUTER \
        JOIN State.win:time(3 sec)";
    let ticking = "INSERT INTO Log SELECT R.r.shutter as id, S.status as seen FROM pattern [every r=Room(temperature \
        > 27.0)] as R unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON R.r.shutter = S.id OUTPUT ALL EVERY 2 \
        sec";
    assert!(JOINS.contains(several) && RATED_JOINS.contains(ticking), "the joins are there");
    let distinct = |statement: &str| statement.replacen("SELECT", "SELECT DISTINCT", 1);
    let joins = JOINS.replace(several, &distinct(several));
    joins.replacen(r#""statements":["#, &format!(r#""statements":["{}","#, distinct(ticking)), 1)
}

/// A configuration reading `Room` events and writing `Seen` rows, with `statements`.
/// `HAVING` without aggregates or `GROUP BY`: each row the statement makes read against it, over a time and a length
/// window, with the remove stream, under each policy (by time and by count), a snapshot, a unique view, a batch,
/// a pattern's matches, and `DISTINCT` with `ORDER BY`.
pub(super) const HAVING_ROWS: [&str; 11] = [
    "INSERT INTO Seen SELECT IRSTREAM id, people, temperature, 't' as flap FROM Room.win:time(3 sec) HAVING \
     temperature > 15",
    "INSERT INTO Seen SELECT RSTREAM id, people, temperature, 'l' as flap FROM Room.win:length(3) HAVING people > 10",
    "INSERT INTO Seen SELECT id, people, temperature, 'e' as flap FROM Room.win:time(4 sec) HAVING temperature > 15 \
     OUTPUT EVERY 2 sec",
    "INSERT INTO Seen SELECT RSTREAM id, people, temperature, 'a' as flap FROM Room.win:time(2 sec) HAVING people < \
     12 OUTPUT ALL EVERY 3 sec",
    "INSERT INTO Seen SELECT id, people, temperature, 'z' as flap FROM Room.win:length(4) HAVING temperature > 20 \
     OUTPUT LAST EVERY 3 EVENTS",
    "INSERT INTO Seen SELECT id, people, temperature, 's' as flap FROM Room.win:time(4 sec) HAVING people > 8 OUTPUT \
     SNAPSHOT EVERY 2 sec",
    "INSERT INTO Seen SELECT IRSTREAM id, people, temperature, 'u' as flap FROM Room.std:unique(floor) HAVING \
     temperature > 18",
    "INSERT INTO Seen SELECT IRSTREAM id, people, temperature, 'b' as flap FROM Room.win:length_batch(3) HAVING \
     people > 9",
    "INSERT INTO Seen SELECT r.id as id, r.people as people, r.temperature as temperature, 'p' as flap FROM pattern \
     [every r=Room(people > 5)] HAVING r.temperature > 20",
    "INSERT INTO Seen SELECT DISTINCT floor as id, people, temperature, 'd' as flap FROM Room.win:length(3) HAVING \
     people > 10 ORDER BY temperature",
    "INSERT INTO Seen SELECT id, people, temperature, 'f' as flap FROM Room.win:length(2) HAVING temperature < 25 \
     OUTPUT FIRST EVERY 2 sec",
];

/// `OUTPUT AFTER n EVENTS` alone: a statement's rows dropped, an update's at a time, until it has made more than `n`;
/// over a time window, a batch (a release taking the count past `n`), a time batch's releases per floor, a pattern's
/// matches, `DISTINCT` (counted before) and `HAVING` alone.
pub(super) const AFTER_ROWS: [&str; 6] = [
    "INSERT INTO Seen SELECT id, people, temperature, 't' as flap FROM Room.win:time(2 sec) OUTPUT AFTER 3 EVENTS",
    "INSERT INTO Seen SELECT id, people, temperature, 'b' as flap FROM Room.win:length_batch(3) OUTPUT AFTER 4 EVENTS",
    "INSERT INTO Seen SELECT floor as id, count(*) as people, max(temperature) as temperature, 'f' as flap FROM \
     Room.win:time_batch(1 sec) GROUP BY floor OUTPUT AFTER 2 EVENTS",
    "INSERT INTO Seen SELECT r.id as id, r.people as people, r.temperature as temperature, 'p' as flap FROM pattern \
     [every r=Room(people > 5)] OUTPUT AFTER 5 EVENTS",
    "INSERT INTO Seen SELECT DISTINCT floor as id, 1 as people, 0.0 as temperature, 'd' as flap FROM \
     Room.win:length_batch(2) OUTPUT AFTER 3 EVENTS",
    "INSERT INTO Seen SELECT id, people, temperature, 'h' as flap FROM Room.win:length(2) HAVING temperature > 15 \
     OUTPUT AFTER 2 EVENTS",
];

pub(super) fn room_to_seen(statements: &[&str]) -> String {
    room_with_to_seen(statements, "")
}

/// [`room_to_seen`] with a `stamp` of the rooms, a `long` ([`stamped_steps`]).
pub(super) fn stamped_room_to_seen(statements: &[&str]) -> String {
    room_with_to_seen(statements, r#",{"name":"stamp","type":"long"}"#)
}

/// A configuration of `statements` over rooms, with `extra` attributes of theirs after the usual ones.
fn room_with_to_seen(statements: &[&str], extra: &str) -> String {
    let statements = serde_json::to_string(statements).expect("text serializes");
    format!(
        r#"{{"host":"h",
  "in":[{{"id":"Room.*","type":"Room","isPattern":true,"attributes":[
    {{"name":"temperature","type":"double"}},{{"name":"floor","type":"string"}},{{"name":"people","type":"int"}},
    {{"name":"flap","type":"string"}}{extra}]}}],
  "out":[{{"id":"S","type":"Seen","attributes":[{{"name":"people","type":"int"}},
    {{"name":"temperature","type":"double"}},{{"name":"flap","type":"string"}}]}}],
  "statements":{statements}}}"#
    )
}

/// Inserts, deletes, updates and merges on one named window, all keyed by its key (so it is partitioned), and its
/// insert stream read back.
pub(super) fn windows() -> String {
    room_to_seen(&[
        "CREATE WINDOW LastReading.std:unique(id) as Room",
        "INSERT INTO Busy SELECT id, people FROM Room(people > 15)",
        "INSERT INTO Cool SELECT id, people FROM Room(temperature < 10)",
        "INSERT INTO LastReading SELECT * FROM Room",
        "ON Busy b DELETE FROM LastReading lr WHERE lr.id = b.id",
        "ON Cool UPDATE LastReading as lr SET people = Cool.people * 2 WHERE lr.id = Cool.id",
        "ON Room(temperature > 40) r MERGE LastReading w WHERE w.id = r.id WHEN MATCHED AND w.people > 5 THEN UPDATE SET flap = 'hot' WHEN MATCHED THEN DELETE",
        "INSERT INTO Seen SELECT id, people, temperature, flap FROM LastReading",
    ])
}

/// Two named windows with writers and no reader: the compiler still builds them (in plan order on every worker), so
/// the edges into them end in their operators.
pub(super) fn unread_windows() -> String {
    room_to_seen(&[
        "CREATE WINDOW LastReading.std:unique(id) as Room",
        "CREATE WINDOW Busiest.std:unique(floor) as Room",
        "INSERT INTO LastReading SELECT * FROM Room",
        "INSERT INTO Busiest SELECT * FROM Room(people > 10)",
        "ON Room(temperature > 40) r MERGE LastReading w WHERE w.id = r.id WHEN MATCHED THEN DELETE",
        "INSERT INTO Seen SELECT id, people, temperature, flap FROM Room(people > 15)",
    ])
}

/// A merge whose condition is not the window's key: the window then runs on one worker.
pub(super) const UNKEYED_MERGE: &str = r#""ON Room(temperature > 35) r MERGE LastReading w WHERE w.floor = r.floor WHEN MATCHED THEN UPDATE SET flap = r.id", "INSERT INTO Seen"#;

pub(super) const GEOFENCE: &str = include_str!("../../../../queries/geofence.json");

/// Mostly text ids, as ingest makes them, and now and then a number or null: the automata of text keys leave out the
/// `id = a.id` test (`dataflow::pattern::keyed`), the others run it.
pub(super) fn tracker_event() -> impl Strategy<Value = Incoming> {
    (0..4u8, 0..8u8, any::<bool>(), 0..100u8).prop_map(|(tracker, kind, inside, jitter)| {
        let offset = f64::from(jitter) / 10_000.0;
        let (x, y) = if inside { (43.60 + offset, 1.44) } else { (43.50 + offset, 1.40) };
        let id = match kind {
            0 => Val::Null,
            1 => Val::Int(i64::from(tracker)),
            _ => Val::String(format!("tracker{tracker}").into()),
        };
        ("tracker".into(), row(&[("id", id), ("position", Val::Point(x, y))]))
    })
}

/// The shutter example's two statements plus a third writer of `Shutter` driven by a stream (one group of three,
/// keyed by shutter, fed by its own rows), five joins looking up an `in` stream (a time window and a unique view,
/// keyed; three of them aggregating each trigger's rows, one with the ever forms, which are the plain aggregates
/// there, and `leaving()`), and a stateless reader of `Shutter`.
pub(super) const JOINS: &str = r#"{"host":"h",
  "in":[{"id":"Room.*","type":"Room","isPattern":true,"attributes":[{"name":"temperature","type":"double"},
      {"name":"shutter","type":"string"}]},
    {"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{"name":"shutter","type":"string"}]},
    {"id":"S.*","type":"State","isPattern":true,"attributes":[{"name":"status","type":"string"}]}],
  "out":[{"id":"X","type":"Shutter","attributes":[{"name":"status","type":"string"}]},
    {"id":"L","type":"Log","attributes":[{"name":"seen","type":"string"}]},
    {"id":"K","type":"Closed","attributes":[{"name":"status","type":"string"}]},
    {"id":"T","type":"Tally","attributes":[{"name":"count","type":"int"}]}],
  "statements":[
    "INSERT INTO Shutter SELECT R.r.shutter as id, 'closed' as status FROM pattern [ every r=Room(temperature > 26.0) -> (timer:interval(5 sec) and not Room(temperature < 26.0 and id=r.id))] as R unidirectional LEFT OUTER JOIN Shutter.std:groupwin(id).std:lastevent() as S ON R.r.shutter = S.id WHERE S is null OR S.status = 'opened'",
    "INSERT INTO Shutter SELECT R.r.shutter as id, 'opened' as status FROM pattern [ every r=Room(temperature < 24.0) -> (timer:interval(5 sec) and not Room(temperature > 24.0 and id=r.id))] as R unidirectional LEFT OUTER JOIN Shutter.std:groupwin(id).std:lastevent() as S ON R.r.shutter = S.id WHERE S is null OR S.status = 'closed' OUTPUT AFTER 12 sec",
    "INSERT INTO Shutter SELECT c.shutter as id, 'manual' as status FROM Cmd as c unidirectional LEFT OUTER JOIN Shutter.std:groupwin(id).std:lastevent() as S ON c.shutter = S.id WHERE S is null OR S.status != 'manual'",
    "INSERT INTO Log SELECT c.shutter as id, S.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(3 sec) as S ON c.shutter = S.id WHERE S is null OR S.status != 'broken'",
    "INSERT INTO Log SELECT c.shutter as id, S.status as seen FROM Cmd(shutter != 'sh2') as c unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON c.shutter = S.id OUTPUT AFTER 10 sec",
    "INSERT INTO Closed SELECT id, status FROM Shutter(status = 'closed')",
    "INSERT INTO Tally SELECT c.shutter as id, count(S.status) as count, max(S.status) as top FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(3 sec) as S ON c.shutter = S.id WHERE S is null OR S.status != 'opened'",
    "INSERT INTO Tally SELECT R.r.shutter as id, count(*) as count FROM pattern [every r=Room(temperature > 29.0)] as R unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON R.r.shutter = S.id GROUP BY S.status HAVING count(*) > 0 ORDER BY count DESC",
    "INSERT INTO Tally SELECT c.shutter as id, countever(S.status) as count, maxever(S.status) as top, fminever(S.id, S.status != 'broken') as low, leaving() as gone FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(3 sec) as S ON c.shutter = S.id"
  ]}"#;

/// Joins with output policies: a first batch of several rows, driven by a pattern's matches, and driven by rows a
/// pattern's timer makes at the ticks' own milliseconds (the pattern's timer fires first: its row is in the interval
/// the tick closes); and joins whose columns are all aggregates under each policy, the last trigger's row standing
/// between triggers (`reference::rate`), the ever forms among them. Their group runs on one worker (the join without an
/// equality spans shutters): [`rated_joins`].
pub(super) const RATED_JOINS: &str = r#"{"host":"h",
  "in":[{"id":"Room.*","type":"Room","isPattern":true,"attributes":[{"name":"temperature","type":"double"},
      {"name":"shutter","type":"string"}]},
    {"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{"name":"shutter","type":"string"}]},
    {"id":"S.*","type":"State","isPattern":true,"attributes":[{"name":"status","type":"string"}]}],
  "out":[{"id":"L","type":"Log","attributes":[{"name":"seen","type":"string"}]},
    {"id":"T","type":"Tally","attributes":[{"name":"count","type":"int"},{"name":"top","type":"string"}]},
    {"id":"G","type":"Grouped","attributes":[{"name":"status","type":"string"},{"name":"count","type":"int"},{"name":"seen","type":"string"}]}],
  "statements":[
    "INSERT INTO Late SELECT a.shutter as shutter FROM pattern [a=Cmd -> every timer:interval(2 sec)]",
    "INSERT INTO Log SELECT c.shutter as id, S.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON c.shutter = S.id OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO Log SELECT c.shutter as id, S.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON c.shutter = S.id OUTPUT LAST EVERY 3 sec",
    "INSERT INTO Log SELECT S.id as id, S.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:length(3) as S ON c.shutter != S.status OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO Log SELECT S.id as id, c.shutter as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(4 sec) as S ON c.shutter = S.id WHERE S is null OR S.status != 'broken' OUTPUT AFTER 5 sec ALL EVERY 2 sec",
    "INSERT INTO Log SELECT R.r.shutter as id, S.status as seen FROM pattern [every r=Room(temperature > 27.0)] as R unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON R.r.shutter = S.id OUTPUT ALL EVERY 2 sec",
    "INSERT INTO Log SELECT l.shutter as id, S.status as seen FROM Late as l unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON l.shutter = S.id OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Tally SELECT count(S.status) as count, max(S.status) as top FROM Cmd as c unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON c.shutter = S.id WHERE S is null OR S.status != 'broken' HAVING count(S.status) != 1 OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Tally SELECT count(*) as count, max(S.status) as top FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:length(3) as S ON c.shutter != S.status OUTPUT ALL EVERY 3 sec ORDER BY count DESC",
    "INSERT INTO Tally SELECT count(*) as count, min(S.status) as top FROM pattern [every r=Room(temperature > 27.0)] as R unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON R.r.shutter = S.id HAVING count(*) > 1 OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO Tally SELECT count(S.status) as count, max(S.status) as top FROM Late as l unidirectional LEFT OUTER JOIN State.win:time(4 sec) as S ON l.shutter = S.id WHERE S is null OR S.status != 'opened' OUTPUT EVERY 2 sec ORDER BY top",
    "INSERT INTO Grouped SELECT S.status as status, count(*) as count, max(S.id) as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:length(3) as S ON c.shutter != S.status GROUP BY S.status HAVING count(*) != 1 OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Grouped SELECT S.status as status, count(S.status) as count, min(S.id) as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON c.shutter = S.id GROUP BY S.status OUTPUT EVERY 3 sec ORDER BY count DESC",
    "INSERT INTO Grouped SELECT S.status as status, count(*) as count, R.r.shutter as seen FROM pattern [every r=Room(temperature > 27.0)] as R unidirectional LEFT OUTER JOIN State.win:time(4 sec) as S ON R.r.shutter = S.id GROUP BY S.status HAVING count(*) != 1 OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Grouped SELECT S.status as status, count(*) as count, c.shutter as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON c.shutter = S.id GROUP BY S.status OUTPUT EVERY 2 sec",
    "INSERT INTO Grouped SELECT S.status as status, count(*) as count, c.shutter as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:length(3) as S ON c.shutter != S.status HAVING count(*) != 2 OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Grouped SELECT S.status as status, count(*) as count, R.r.shutter as seen FROM pattern [every r=Room(temperature > 27.0)] as R unidirectional LEFT OUTER JOIN State.win:time(4 sec) as S ON R.r.shutter = S.id HAVING count(*) != 1 OUTPUT ALL EVERY 3 sec ORDER BY status",
    "INSERT INTO Grouped SELECT S.status as status, count(*) as count, c.shutter as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON c.shutter = S.id HAVING count(*) > 0 OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO Grouped SELECT S.status as status, count(*) as count, max(S.id) as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:length(3) as S ON c.shutter != S.status GROUP BY S.status OUTPUT AFTER 3 sec EVERY 2 sec",
    "INSERT INTO Tally SELECT count(*) as count, max(S.status) as top FROM Cmd as c unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON c.shutter = S.id OUTPUT AFTER 3 sec LAST EVERY 2 sec",
    "INSERT INTO Grouped SELECT S.status as status, countever(*) as count, maxever(S.id) as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:length(3) as S ON c.shutter = S.id GROUP BY S.status OUTPUT LAST EVERY 2 sec"
  ]}"#;

/// [`RATED_JOINS`], or with every join's view split by shutter: a group that could be split over the workers, but for
/// the policies, whose clocks and rows are the statement's own.
pub(super) fn rated_joins(keyed: bool) -> String {
    match keyed {
        false => RATED_JOINS.to_owned(),
        true => {
            RATED_JOINS.lines().filter(|line| !line.contains("ON c.shutter != S.status")).collect::<Vec<_>>().join("\n")
        }
    }
}

/// [`JOINS`] with views that do not split by shutter, so both groups run on one worker.
pub(super) fn unkeyed_joins() -> String {
    JOINS
        .replace(
            "Cmd as c unidirectional LEFT OUTER JOIN Shutter.std:groupwin(id).std:lastevent()",
            "Cmd as c unidirectional LEFT OUTER JOIN Shutter.win:length(2)",
        )
        .replace("State.std:unique(id)", "State.std:lastevent()")
}

/// Joins looking up named windows: one kept by a merge (which leaves out broken states, or deletes a closed shutter's
/// row at one), updated and deleted from by commands, one of the last state not `opened`, which hot rooms delete;
/// driven by commands and by a pattern, one aggregating; and a query and a pattern reading a window's insert stream. Keyed by shutter, or with
/// the aggregating join's `ON` reading every row, so that the `Latest` group runs on one worker.
pub(super) fn window_joins(keyed: bool) -> String {
    let tally_on = if keyed { "c.shutter = l.id" } else { "l.status != 'broken'" };
    format!(
        r#"{{"host":"h",
  "in":[{{"id":"Room.*","type":"Room","isPattern":true,"attributes":[{{"name":"temperature","type":"double"}},
      {{"name":"shutter","type":"string"}}]}},
    {{"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{{"name":"shutter","type":"string"}}]}},
    {{"id":"S.*","type":"State","isPattern":true,"attributes":[{{"name":"status","type":"string"}}]}}],
  "out":[{{"id":"L","type":"Log","attributes":[{{"name":"seen","type":"string"}}]}},
    {{"id":"T","type":"Tally","attributes":[{{"name":"count","type":"int"}}]}}],
  "statements":[
    "CREATE WINDOW Latest.std:unique(id) as State",
    "ON State s MERGE Latest l WHERE s.id = l.id WHEN NOT MATCHED THEN INSERT SELECT * WHEN MATCHED AND s.status = 'broken' AND l.status = 'closed' THEN DELETE WHEN MATCHED AND s.status != 'broken' THEN UPDATE SET status = s.status",
    "ON Cmd(shutter = 'sh2') as c UPDATE Latest as l SET status = 'manual' WHERE l.id = c.shutter",
    "ON Cmd(shutter = 'sh1') as c DELETE FROM Latest as l WHERE l.id = c.shutter",
    "CREATE WINDOW Odd.std:lastevent() as State",
    "INSERT INTO Odd SELECT * FROM State(status != 'opened')",
    "ON Room(temperature > 30.0) as r DELETE FROM Odd as o WHERE o.id = r.shutter",
    "INSERT INTO Log SELECT c.shutter as id, l.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN Latest as l ON c.shutter = l.id",
    "INSERT INTO Log SELECT R.r.shutter as id, l.status as seen FROM pattern [every r=Room(temperature > 29.0)] as R unidirectional LEFT OUTER JOIN Latest as l ON R.r.shutter = l.id WHERE l is null OR l.status != 'opened'",
    "INSERT INTO Log SELECT c.shutter as id, o.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN Odd as o ON c.shutter = o.id",
    "INSERT INTO Tally SELECT c.shutter as id, count(l.status) as count FROM Cmd as c unidirectional LEFT OUTER JOIN Latest as l ON {tally_on} GROUP BY l.status",
    "INSERT INTO Log SELECT id, status as seen FROM Latest(status = 'manual' or status = 'closed')",
    "INSERT INTO Log SELECT a.id as id, b.status as seen FROM pattern [every a=Latest(status = 'closed') -> b=Latest(id = a.id)]"
  ]}}"#
    )
}

pub(super) fn join_event() -> impl Strategy<Value = Incoming> {
    let text = |s: String| Val::String(s.into());
    prop_oneof![
        3 => (0..4u8, 18..32u8).prop_map(move |(room, t)| {
            let props = [("id", text(format!("room{room}"))), ("temperature", Val::Double(f64::from(t) + 0.5)),
                ("shutter", text(format!("sh{}", room % 3)))];
            ("Room".into(), row(&props))
        }),
        1 => (0..3u8).prop_map(move |s| ("Cmd".into(), row(&[("id", text("c".into())), ("shutter", text(format!("sh{s}")))]))),
        1 => (0..3u8, 0..3usize).prop_map(move |(s, k)| {
            let status = ["opened", "closed", "broken"][k];
            ("State".into(), row(&[("id", text(format!("sh{s}"))), ("status", text(status.into()))]))
        }),
    ]
}
