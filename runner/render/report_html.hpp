#pragma once
/// HTML pieces the report is made of. Private to the report's files.
#include <string>
#include <vector>

namespace bb::render::html {

/// A <table>: header cells, then rows; a row's class (e.g. "bad") when given.
std::string table(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows,
                  const std::vector<std::string>& row_classes = {});

/// <figure> holding an SVG chart and a caption.
std::string figure(const std::string& svg, const std::string& caption);

/// The page's <head> with its inline style sheet, and the opening <body>.
std::string page_start(const std::string& title);

/// A paragraph of class "note" (escaped).
std::string note(const std::string& text);

} // namespace bb::render::html
