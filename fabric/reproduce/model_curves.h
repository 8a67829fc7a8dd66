// A figure's model curves (Figure::models; docs/reproduce.md, "Models"): each model's closed form
// as a series beside the measured ones, computed from the file, never stored in seeds.csv.
#pragma once

#include "fabric/reproduce/figures.h"

namespace spraylab::fabric {

// Adds one series per model of the figure: its values at every x the measured series have and at
// the model's own optimum, without seeds (finish_figure ends with it).
void add_models(FigureData& data);

}  // namespace spraylab::fabric
