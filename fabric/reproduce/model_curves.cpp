#include "fabric/reproduce/model_curves.h"

#include <fmt/format.h>

#include <algorithm>

#include "fabric/reproduce/packet_size_model.h"

namespace spraylab::fabric {
namespace {

std::string whole_number(double v) { return fmt::format("{:.0f}", v); }

// A model's series: its closed form at every x the measured series have (in the figure's unit:
// x · x_divide is the payload in bytes) and at its own optimum, y in the figure's unit.
FigureSeries model_series(const Figure& figure, const ModelCurve& model,
                          const std::vector<FigureSeries>& measured) {
  FigureSeries out{model.name, {}, std::nullopt, std::nullopt, true};
  const PacketSizeModel& m = model.packet_size;
  const auto add = [&](double x, const std::string& x_text) {
    if (std::any_of(out.points.begin(), out.points.end(),
                    [x](const FigurePoint& p) { return p.x == x; })) {
      return;
    }
    const double y = m.cct_ns(x * figure.x_divide) / figure.y_divide;
    out.points.push_back({x, y, x_text, {}, Interval{0, y, 0, 0}});
  };
  for (const FigureSeries& s : measured) {
    for (const FigurePoint& p : s.points) add(p.x, p.x_text);
  }
  const double best = m.best_payload_bytes();
  add(best / figure.x_divide, whole_number(best));
  std::stable_sort(out.points.begin(), out.points.end(),
                   [](const FigurePoint& a, const FigurePoint& b) { return a.x < b.x; });
  return out;
}

}  // namespace

void add_models(FigureData& data) {
  const std::vector<FigureSeries> measured = data.series;
  for (const ModelCurve& m : data.figure->models) {
    data.series.push_back(model_series(*data.figure, m, measured));
  }
}

}  // namespace spraylab::fabric
