// Watches on the fake API server: from the current state or a resourceVersion through the
// event history, with selectors, server-side tables, bookmarks, timeouts, 410 Expired once
// the history is compacted, and the drop/cut fault knobs.
#include <algorithm>
#include <optional>
#include <tuple>

#include "support/fake_handler.hpp"

namespace tfjob::test::fake {

namespace {

/// A watch event's object: the object itself, or a one-row Table when the client asked
/// for tables (`kubectl get -w`).
json watch_object(const ResourceInfo& ri, json o, bool table = false) {
  o["apiVersion"] = ri.api_version();
  o["kind"] = ri.kind;
  if (table) return fake::to_table(ri, {o}, json{{"resourceVersion", o["metadata"].value("resourceVersion", "")}});
  return o;
}

/// The watch's lines from the history after `cur`, which advances past every event read:
/// for a watch with selectors, an object that enters them is ADDED and one that leaves DELETED.
void events_since(const std::deque<Event>& history, std::uint64_t& cur, const ResourceInfo& ri, const std::string& ns,
                  const Selector& lsel, const Selector& fsel, bool table, std::vector<std::string>& out) {
  auto it = std::upper_bound(history.begin(), history.end(), cur,
                             [](std::uint64_t v, const fake::Event& e) { return v < e.rv; });
  const std::string rkey = ri.key();
  for (; it != history.end(); ++it) {
    const fake::Event& e = *it;
    cur = e.rv;
    if (e.rkey != rkey || (!ns.empty() && e.ns != ns)) continue;
    bool now_match = lsel.matches_labels(e.object["metadata"].value("labels", json::object())) && fsel.matches_fields(e.object);
    if (!now_match && e.type != "MODIFIED") continue;
    std::string type = e.type;
    if (e.type == "MODIFIED") {
      // did it match before? find the previous state in history (or assume it did)
      bool before = true;
      if (!lsel.reqs.empty() || !fsel.reqs.empty()) {
        before = false;
        for (auto jt = std::make_reverse_iterator(it); jt != history.rend(); ++jt) {
          if (jt->rkey == rkey && jt->object["metadata"]["uid"] == e.object["metadata"]["uid"]) {
            before = jt->type != "DELETED" && lsel.matches_labels(jt->object["metadata"].value("labels", json::object())) &&
                     fsel.matches_fields(jt->object);
            break;
          }
        }
      }
      if (!before && !now_match) continue;
      if (!before) type = "ADDED";
      else if (!now_match) type = "DELETED";
    }
    out.push_back(json{{"type", type}, {"object", watch_object(ri, e.object, table)}}.dump() + "\n");
  }
}

/// The chunks of one watch: the initial events, then the history as it grows, bookmarks,
/// and the drop/cut/timeout knobs (the members are what its provider captures).
struct WatchPump {
  FakeApiServer::Impl* sp;
  const httplib::Request* rq;
  ResourceInfo ri;
  std::string ns;
  Selector lsel, fsel;
  bool bookmarks, table;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  int drop_after;
  bool abrupt;
  std::shared_ptr<Stream> stream;
  std::shared_ptr<std::tuple<std::uint64_t, std::vector<std::string>, int>> state;  ///< cursor, initial, sent
  std::chrono::milliseconds bookmark_every;

  bool operator()(size_t, httplib::DataSink& sink) const {
    auto& [cur, init, sent] = *state;
    auto finish = [&](bool clean) {
      if (clean) sink.done();
      return clean;
    };
    for (auto& line : init) {
      if (drop_after >= 0 && sent >= drop_after) return finish(!abrupt);
      if (!stream->write(sink, line)) return false;
      ++sent;
    }
    init.clear();
    auto next_bookmark = std::chrono::steady_clock::now() + bookmark_every;
    for (;;) {
      std::vector<std::string> out;
      bool do_bookmark = false;
      {
        std::unique_lock<std::mutex> lk(sp->mu);
        auto wake = std::chrono::steady_clock::now() + std::chrono::milliseconds(250);
        if (bookmarks && next_bookmark < wake) wake = next_bookmark;
        if (deadline && *deadline < wake) wake = *deadline;
        sp->cv.wait_until(lk, wake, [&] { return sp->stopping || (!sp->history.empty() && sp->history.back().rv > cur); });
        if (sp->stopping) return finish(true);
        if (cur < sp->compacted_rv && !sp->history.empty() && sp->history.front().rv > cur + 1) {
          out.push_back(json{{"type", "ERROR"},
                             {"object", fake::status_failure(410, "Expired", "too old resource version: " + std::to_string(cur) + " (" +
                                                                                 std::to_string(sp->compacted_rv + 1) + ")")}}
                            .dump() +
                        "\n");
          lk.unlock();
          stream->write(sink, out[0]);
          return finish(true);
        }
        events_since(sp->history, cur, ri, ns, lsel, fsel, table, out);
        if (out.empty() && bookmarks && std::chrono::steady_clock::now() >= next_bookmark) {
          do_bookmark = true;
          cur = sp->rv;
        }
      }
      for (const auto& line : out) {
        if (drop_after >= 0 && sent >= drop_after) return finish(!abrupt);
        if (!stream->write(sink, line)) return false;
        ++sent;
      }
      if (do_bookmark) {
        json bm = {{"type", "BOOKMARK"},
                   {"object", {{"kind", ri.kind}, {"apiVersion", ri.api_version()},
                               {"metadata", {{"resourceVersion", std::to_string(cur)}, {"creationTimestamp", nullptr}}}}}};
        if (!stream->write(sink, bm.dump() + "\n")) return false;
        next_bookmark = std::chrono::steady_clock::now() + bookmark_every;
      }
      if (drop_after >= 0 && sent >= drop_after) return finish(!abrupt);
      if (deadline && std::chrono::steady_clock::now() >= *deadline) return finish(true);
      if (out.empty() && !do_bookmark && peer_gone(*rq)) return false;
    }
  }
};

}  // namespace

void Handler::do_watch(const Target& t) {
  std::string err;
  auto lsel = fake::Selector::parse(param(req, "labelSelector"), false, err);
  if (!err.empty()) throw fake::err_bad_request(err);
  auto fsel = fake::Selector::parse(param(req, "fieldSelector"), true, err);
  if (!err.empty()) throw fake::err_bad_request(err);
  if (!t.name.empty()) fsel.reqs.push_back({"metadata.name", "=", {t.name}});
  const bool bookmarks = truthy(param(req, "allowWatchBookmarks"));
  const bool table = wants_table();
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (req.has_param("timeoutSeconds")) {
    try {
      deadline = std::chrono::steady_clock::now() + std::chrono::seconds(std::stol(param(req, "timeoutSeconds")));
    } catch (...) {
      throw fake::err_bad_request("invalid timeoutSeconds");
    }
  }
  fake::FaultRule rule;
  bool gone = s.faults_impl.take(fake::FaultRule::gone, req.method, req.path, rule);
  int drop_after = -1;
  bool abrupt = true;
  if (s.faults_impl.take(fake::FaultRule::drop_watch, req.method, req.path, rule)) {
    drop_after = rule.events;
    abrupt = rule.abrupt;
  }
  auto stream = std::make_shared<Stream>();
  if (s.faults_impl.take(fake::FaultRule::cut, req.method, req.path, rule)) stream->cut_at = rule.bytes;

  const ResourceInfo ri = *t.ri;
  const std::string ns = ri.namespaced ? t.ns : "";
  std::string rvs = param(req, "resourceVersion");
  std::uint64_t cursor = 0;
  std::vector<std::string> initial;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (rvs.empty() || rvs == "0") {
      // "any": the current state as ADDED events, then changes
      for (const auto& o : s.list_locked(ri, ns)) {
        if (!lsel.matches_labels(o["metadata"].value("labels", json::object())) || !fsel.matches_fields(o)) continue;
        initial.push_back(json{{"type", "ADDED"}, {"object", watch_object(ri, o, table)}}.dump() + "\n");
      }
      cursor = s.rv;
    } else {
      try {
        cursor = std::stoull(rvs);
      } catch (...) {
        throw fake::err_bad_request("invalid resource version: " + rvs);
      }
      if (cursor < s.compacted_rv) {
        gone = true;
        rvs = std::to_string(cursor) + " (" + std::to_string(s.compacted_rv + 1) + ")";
      }
    }
  }
  if (gone) {
    // a real apiserver's watch cache answers 200, then one ERROR event with the 410 Status
    std::string line = json{{"type", "ERROR"},
                            {"object", fake::status_failure(410, "Expired", "too old resource version: " + (rvs.empty() ? std::string("0") : rvs))}}
                           .dump() +
                       "\n";
    rec.status = 200;
    res.status = 200;
    res.set_chunked_content_provider("application/json", [line, stream](size_t, httplib::DataSink& sink) {
      if (!stream->write(sink, line)) return false;
      sink.done();
      return true;
    });
    return;
  }
  rec.status = 200;
  res.status = 200;
  const auto bookmark_every = s.opts.bookmark_interval;
  FakeApiServer::Impl* sp = &s;
  const httplib::Request* rq = &req;
  auto state = std::make_shared<std::tuple<std::uint64_t, std::vector<std::string>, int>>(cursor, std::move(initial), 0);
  res.set_chunked_content_provider("application/json", WatchPump{sp, rq, ri, ns, lsel, fsel, bookmarks, table, deadline,
                                                                 drop_after, abrupt, stream, state, bookmark_every});
}

}  // namespace tfjob::test::fake
