// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/line_hub.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace xrunlab {
namespace {

struct Pipe {
  int r = -1, w = -1;
  Pipe() {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    r = fds[0];
    w = fds[1];
  }
  ~Pipe() {
    if (r >= 0) ::close(r);
    if (w >= 0) ::close(w);
  }
  void write(const std::string& s) const {
    ASSERT_EQ(::write(w, s.data(), s.size()), ssize_t(s.size()));
  }
  void close_write() {
    ::close(w);
    w = -1;
  }
};

struct Collected {
  std::mutex mu;
  std::vector<std::string> lines;
  LineHub::Sink sink() {
    return [this](std::string_view l) {
      std::lock_guard<std::mutex> lock(mu);
      lines.emplace_back(l);
    };
  }
};

TEST(LineHub, SplitsLinesAcrossReadsAndDeliversTheLastOneAtEof) {
  Pipe p;
  Collected got;
  LineHub hub;
  hub.add(p.r, got.sink());
  hub.start();
  p.write("first li");
  p.write("ne\nsecond\nthi");
  p.write("rd without newline");
  p.close_write();
  hub.stop();
  EXPECT_EQ(got.lines, (std::vector<std::string>{"first line", "second", "third without newline"}));
}

TEST(LineHub, SourcesAddedWhileRunningAreRead) {
  Pipe a, b;
  Collected from_a, from_b;
  LineHub hub;
  hub.add(a.r, from_a.sink());
  hub.start();
  a.write("a1\n");
  hub.add(b.r, from_b.sink());
  b.write("b1\nb2\n");
  a.close_write();
  b.close_write();
  hub.stop();
  EXPECT_EQ(from_a.lines, (std::vector<std::string>{"a1"}));
  EXPECT_EQ(from_b.lines, (std::vector<std::string>{"b1", "b2"}));
}

TEST(LineHub, StopReturnsWhileAWriterStillHoldsThePipeOpen) {
  Pipe p;
  Collected got;
  LineHub hub;
  hub.add(p.r, got.sink());
  hub.start();
  p.write("only\n");
  hub.stop();  // nothing more arrives: returns after the idle period, without EOF
  hub.stop();  // idempotent
  EXPECT_EQ(got.lines, (std::vector<std::string>{"only"}));
}

TEST(LineHub, ReadsHundredsOfSourcesEachIntoItsOwnSink) {
  // 254 clients give the hub about 760 pipes; every line reaches the sink of its own pipe.
  constexpr int kSources = 300;
  std::vector<std::unique_ptr<Pipe>> pipes;
  std::vector<std::unique_ptr<Collected>> got;
  LineHub hub;
  for (int i = 0; i < kSources; ++i) {
    pipes.push_back(std::make_unique<Pipe>());
    got.push_back(std::make_unique<Collected>());
    hub.add(pipes.back()->r, got.back()->sink());
  }
  hub.start();
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kSources; ++i) {
      pipes[static_cast<size_t>(i)]->write(std::to_string(i) + "." + std::to_string(round) + "\n");
    }
  }
  for (auto& p : pipes) p->close_write();
  hub.stop();
  for (int i = 0; i < kSources; ++i) {
    const std::string n = std::to_string(i);
    EXPECT_EQ(got[static_cast<size_t>(i)]->lines,
              (std::vector<std::string>{n + ".0", n + ".1", n + ".2"}))
        << "source " << i;
  }
}

TEST(LineHub, AFileThatEpollCannotWaitOnIsReadWhole) {
  char path[] = "/tmp/line_hub_test.XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::string text = "one\ntwo\nthree";
  ASSERT_EQ(::write(fd, text.data(), text.size()), ssize_t(text.size()));
  ASSERT_EQ(::lseek(fd, 0, SEEK_SET), 0);
  Collected got;
  LineHub hub;
  hub.add(fd, got.sink());
  hub.start();
  hub.stop();
  ::close(fd);
  std::remove(path);
  EXPECT_EQ(got.lines, (std::vector<std::string>{"one", "two", "three"}));
}

}  // namespace
}  // namespace xrunlab
