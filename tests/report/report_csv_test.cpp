// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/report_csv.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace xrunlab {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

size_t cells(const std::string& line) {
  return static_cast<size_t>(std::count(line.begin(), line.end(), ',')) + 1;
}

ClientSecond row(int64_t second, uint64_t cycles, std::optional<int64_t> dmin,
                 std::optional<double> dmean, std::optional<int64_t> dmax,
                 std::optional<int64_t> duration, std::optional<int64_t> cycle, uint64_t over_spare,
                 uint64_t over_1000, uint64_t late) {
  ClientSecond s;
  s.second = second;
  s.cycles = cycles;
  s.delay_min_us = dmin;
  s.delay_mean_us = dmean;
  s.delay_max_us = dmax;
  s.duration_max_us = duration;
  s.cycle_max_us = cycle;
  s.over_spare = over_spare;
  s.over_1000 = over_1000;
  s.late = late;
  return s;
}

SystemSecond sys(double t_s, double user, std::optional<double> dsp, uint64_t xruns) {
  SystemSecond s;
  s.t_s = t_s;
  s.user_pct = user;
  s.nice_pct = 0.5;
  s.system_pct = 4.25;
  s.iowait_pct = 0.125;
  s.irq_pct = 0;
  s.softirq_pct = 0.0625;
  s.intr_per_s = 1680.1;
  s.ctxt_per_s = 14361.3;
  s.dsp_load_pct = dsp;
  s.xruns = xruns;
  return s;
}

// Client 2 is listed first (the writer orders by index), reports only second 0 and then has a
// second without any delay value; the sampler woke 4 ms late, 2 ms early and once before the
// window started; second 3 has a system sample but no client rows.
RunResult timeseries_result() {
  RunResult r;
  ClientResult c2;
  c2.index = 2;
  c2.seconds = {
      row(0, 100, 7, 9.5, 40, 60, 300, 0, 0, 0),
      row(1, 0, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, 0, 0, 0)};
  ClientResult c1;
  c1.index = 1;
  c1.seconds = {row(0, 300, 5, 8.0, 1500, 80, 1700, 1, 1, 1),
                row(1, 188, 6, 10.25, 30, 50, 250, 0, 0, 0)};
  r.client_results = {c2, c1};
  r.system = {sys(0.2, 99, 99.0, 9), sys(1.004, 20.5, 36.25, 1), sys(1.998, 21, std::nullopt, 0),
              sys(4.0, 22.75, 30.0, 0)};
  return r;
}

TEST(SystemSecondOf, MiddleOfTheSampledInterval) {
  EXPECT_EQ(system_second_of(1.0), 0);
  EXPECT_EQ(system_second_of(1.004), 0);
  EXPECT_EQ(system_second_of(0.998), 0);
  EXPECT_EQ(system_second_of(2.0), 1);
  EXPECT_EQ(system_second_of(2.49), 1);
  EXPECT_EQ(system_second_of(2.5), 2);
  EXPECT_EQ(system_second_of(0.5), 0);
  EXPECT_EQ(system_second_of(0.49), std::nullopt);
  EXPECT_EQ(system_second_of(-3), std::nullopt);
  EXPECT_EQ(system_second_of(std::nan("")), std::nullopt);
}

TEST(TimeseriesCsv, ExactRows) {
  const std::string expected =
      "second,client,cycles,delay_min_us,delay_mean_us,delay_max_us,duration_max_us,cycle_max_us,"
      "over_spare,over_1000,late,user_pct,nice_pct,system_pct,iowait_pct,irq_pct,softirq_pct,"
      "intr_per_s,ctxt_per_s,dsp_load_pct,xruns\n"
      "0,1,300,5,8.000,1500,80,1700,1,1,1,,,,,,,,,,\n"
      "0,2,100,7,9.500,40,60,300,0,0,0,,,,,,,,,,\n"
      // mean (300 * 8 + 100 * 9.5) / 400 = 8.375
      "0,all,400,5,8.375,1500,80,1700,1,1,1,"
      "20.500,0.500,4.250,0.125,0.000,0.062,1680.100,14361.300,36.250,1\n"
      "1,1,188,6,10.250,30,50,250,0,0,0,,,,,,,,,,\n"
      "1,2,0,,,,,,0,0,0,,,,,,,,,,\n"
      "1,all,188,6,10.250,30,50,250,0,0,0,"
      "21.000,0.500,4.250,0.125,0.000,0.062,1680.100,14361.300,,0\n"
      "3,all,0,,,,,,0,0,0,"
      "22.750,0.500,4.250,0.125,0.000,0.062,1680.100,14361.300,30.000,0\n";
  EXPECT_EQ(format_timeseries_csv(timeseries_result()), expected);
}

TEST(TimeseriesCsv, Structure) {
  RunResult r;
  for (int i = 1; i <= 3; ++i) {
    ClientResult c;
    c.index = i;
    for (int64_t s = 0; s < 5; ++s) c.seconds.push_back(row(s, 10, 1, 1, 1, 1, 1, 0, 0, 0));
    r.client_results.push_back(c);
  }
  const std::vector<std::string> lines = split_lines(format_timeseries_csv(r));
  ASSERT_EQ(lines.size(), 1u + 5 * (3 + 1));
  for (const std::string& l : lines) EXPECT_EQ(cells(l), 21u) << l;
  EXPECT_EQ(lines[4], "0,all,30,1,1.000,1,1,1,0,0,0,,,,,,,,,,");
  EXPECT_EQ(lines[5].substr(0, 4), "1,1,");
}

TEST(TimeseriesCsv, EmptyRunIsHeaderOnly) {
  const std::vector<std::string> lines = split_lines(format_timeseries_csv(RunResult{}));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(cells(lines[0]), 21u);
}

TEST(HistogramCsv, ExactRows) {
  RunResult r;
  ClientResult c;
  c.index = 1;
  c.delay = Histogram(10, 2);  // bound 10 us, keeps the 2 largest overflow values
  for (int64_t v : {3, 3, 5, 11, 12, 14, 13}) c.delay.add(v);
  c.delay_dll.add(-4, 2);
  c.delay_dll.add(0);
  c.duration.add(70, 5);
  ClientResult d;  // a client without any cycle: no rows at all
  d.index = 2;
  r.client_results = {c, d};
  const std::string expected =
      "client,metric,value_us,count\n"
      "1,delay,3,2\n"
      "1,delay,5,1\n"
      "1,delay,13,1\n"
      "1,delay,14,1\n"
      "1,delay_overflow_dropped,,2\n"
      "1,delay_dll,0,1\n"
      "1,delay_dll_underflow,,2\n"
      "1,duration,70,5\n";
  EXPECT_EQ(format_histogram_csv(r), expected);
}

TEST(HistogramCsv, CountsAddUpPerClientAndMetric) {
  RunResult r;
  for (int i = 1; i <= 2; ++i) {
    ClientResult c;
    c.index = i;
    for (int64_t v = -3; v < 25000; v += 7 * i) {
      c.delay.add(v);
      c.cycle.add(v + 100, 2);
    }
    r.client_results.push_back(c);
  }
  std::map<std::string, uint64_t> sums;
  const std::vector<std::string> lines = split_lines(format_histogram_csv(r));
  ASSERT_EQ(lines.front(), "client,metric,value_us,count");
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    ASSERT_EQ(cells(l), 4u) << l;
    std::string metric = l.substr(l.find(',') + 1);
    metric = metric.substr(0, metric.find(','));
    for (const char* suffix : {"_underflow", "_overflow_dropped"}) {
      const size_t at = metric.find(suffix);
      if (at != std::string::npos) metric.resize(at);
    }
    sums[l.substr(0, l.find(',')) + "/" + metric] += std::stoull(l.substr(l.rfind(',') + 1));
  }
  for (const ClientResult& c : r.client_results) {
    const std::string k = std::to_string(c.index);
    EXPECT_EQ(sums[k + "/delay"], c.delay.count());
    EXPECT_EQ(sums[k + "/cycle"], c.cycle.count());
    EXPECT_EQ(sums.count(k + "/duration"), 0u);
  }
}

// The seconds the CSV rows come from: the same seconds, clients and aggregates.
TEST(TimeseriesSeconds, AreTheRowsOfTheCsv) {
  const RunResult r = timeseries_result();
  const std::vector<TimeseriesSecond> t = timeseries_seconds(r);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].second, 0);
  ASSERT_EQ(t[0].clients.size(), 2u);
  EXPECT_EQ(t[0].clients[0].first, 1);  // ascending by index, whatever the result's order
  EXPECT_EQ(t[0].clients[0].second, &r.client_results[1].seconds[0]);
  EXPECT_EQ(t[0].all.cycles, 400u);
  EXPECT_DOUBLE_EQ(*t[0].all.delay_mean_us, 8.375);
  EXPECT_EQ(t[0].system, &r.system[1]);  // the sample 4 ms late still counts for second 0
  EXPECT_EQ(t[1].system, &r.system[2]);
  EXPECT_EQ(t[2].second, 3);
  EXPECT_TRUE(t[2].clients.empty());
  EXPECT_FALSE(t[2].all.delay_max_us);
  EXPECT_EQ(t[2].system, &r.system[3]);
}

// histogram.csv read back writes the same rows: kept overflow values, dropped ones and the
// underflow included.
RunResult with_histograms(const std::map<int, ClientHistograms>& h) {
  RunResult r;
  for (const auto& [index, c] : h) {
    ClientResult out;
    out.index = index;
    out.delay = c.delay;
    out.delay_dll = c.delay_dll;
    out.duration = c.duration;
    out.cycle = c.cycle;
    r.client_results.push_back(std::move(out));
  }
  return r;
}

TEST(HistogramCsvRead, WritesTheSameRowsAgain) {
  RunResult r;
  ClientResult c;
  c.index = 1;
  c.delay = Histogram(10, 2);
  for (int64_t v : {3, 3, 5, 11, 12, 14, 13}) c.delay.add(v);
  c.delay_dll.add(-4, 2);
  c.delay_dll.add(0);
  c.duration.add(70, 5);
  ClientResult d;  // a wide histogram: more values above the default bound than it keeps
  d.index = 7;
  d.cycle = Histogram(60000);
  for (int64_t v = 20001; v < 23001; ++v) d.cycle.add(v);
  d.cycle.add(5, 3);
  r.client_results = {c, d};
  const std::string text = format_histogram_csv(r);
  std::string why;
  const auto back = parse_histogram_csv(text, &why);
  ASSERT_TRUE(back) << why;
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ(back->at(1).delay.count(), 7u);
  EXPECT_EQ(back->at(1).delay.overflow_dropped(), 2u);
  EXPECT_EQ(back->at(1).delay_dll.underflow_count(), 2u);
  EXPECT_EQ(back->at(7).cycle.count(), 3003u);
  EXPECT_EQ(back->at(7).cycle.nonzero(), d.cycle.nonzero());
  EXPECT_EQ(format_histogram_csv(with_histograms(*back)), text);
  // Only the header: no client.
  const auto none = parse_histogram_csv("client,metric,value_us,count\n", &why);
  ASSERT_TRUE(none) << why;
  EXPECT_TRUE(none->empty());
}

// The input the fuzzer found hanging the reader (a row counting 18 million of one value above
// the bound, added one by one): read at once, and written back the same.
TEST(HistogramCsvRead, AHugeCountAboveTheBoundReadsAtOnce) {
  const std::string text =
      "client,metric,value_us,count\n"
      "1,delay,5,3\n"
      "1,delay_underflow,,2\n"
      "1,cycle_overflow_dropped,,419\n"
      "1,delay,375,1\n"
      "1,delay,3687,2\n"
      "1,delay,49111,18311191\n"
      "2,duration,0,1\n";
  std::string why;
  const auto h = parse_histogram_csv(text, &why);
  ASSERT_TRUE(h) << why;
  EXPECT_EQ(h->at(1).delay.count(), 3u + 2u + 1u + 2u + 18311191u);
  EXPECT_EQ(h->at(1).delay.max(), 49111);
  const std::string once = format_histogram_csv(with_histograms(*h));
  const auto back = parse_histogram_csv(once, &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(format_histogram_csv(with_histograms(*back)), once);
}

// One row counting a value above the bound many times keeps as many copies as the file has
// rows above the bound (at least the default), and equal ones are written in one row: fuzzing found
// one row of 400 million copies that made the reader keep 400 million values (out of memory).
TEST(HistogramCsvRead, OneRowOfManyOverflowValuesKeepsRowsNotCopies) {
  const std::string text =
      "client,metric,value_us,count\n"
      "1,delay,5,3\n"
      "1,delay,99999,400000000\n";
  std::string why;
  const auto h = parse_histogram_csv(text, &why);
  ASSERT_TRUE(h) << why;
  const Histogram& d = h->at(1).delay;
  EXPECT_EQ(d.count(), 400000003u);
  EXPECT_EQ(d.max(), 99999);
  EXPECT_EQ(d.overflow_dropped(), 400000000u - Histogram::kDefaultOverflowKeep);
  const std::string once = format_histogram_csv(with_histograms(*h));
  EXPECT_EQ(once, fmt::format("client,metric,value_us,count\n"
                              "1,delay,5,3\n"
                              "1,delay,99999,{}\n"
                              "1,delay_overflow_dropped,,{}\n",
                              Histogram::kDefaultOverflowKeep,
                              400000000u - Histogram::kDefaultOverflowKeep));
  const auto back = parse_histogram_csv(once, &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(format_histogram_csv(with_histograms(*back)), once);
}

TEST(HistogramCsvRead, RefusesWhatItDidNotWriteNamingTheLine) {
  auto why_of = [](const std::string& text) {
    std::string why;
    EXPECT_FALSE(parse_histogram_csv(text, &why)) << text;
    return why;
  };
  const std::string header = "client,metric,value_us,count\n";
  EXPECT_EQ(why_of(""), "line 1: the header is not 'client,metric,value_us,count'");
  EXPECT_EQ(why_of("second,client\n1,2\n"),
            "line 1: the header is not 'client,metric,value_us,count'");
  EXPECT_EQ(why_of(header + "1,delay,3,2\n1,delay,4\n"), "line 3: 3 cells, not 4");
  EXPECT_EQ(why_of(header + "x,delay,3,2\n"), "line 2: the client is not an integer");
  EXPECT_EQ(why_of(header + "1,delay,3,-2\n"), "line 2: the count is not an integer");
  EXPECT_EQ(why_of(header + "1,delay,3.5,2\n"), "line 2: the value is not an integer");
  EXPECT_EQ(why_of(header + "1,latency,3,2\n"), "line 2: unknown metric 'latency'");
  EXPECT_EQ(why_of(header + "1,cycle_overflow_dropped,3,2\n"),
            "line 2: cycle_overflow_dropped has a value");
}

}  // namespace
}  // namespace xrunlab
