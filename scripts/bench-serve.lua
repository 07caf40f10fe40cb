-- wrk: random pages of the sample listing (scripts/bench-serve.sh), in the query form and
-- the path form, every language and the unprefixed default, every page size.
local langs = { "en/", "fr/", "ja/", "th/", "" }
local sizes = { { 10, 7 }, { 20, 4 }, { 50, 2 }, { 100, 1 } }
request = function()
  local lang = langs[math.random(#langs)]
  local size = sizes[math.random(#sizes)]
  local page = math.random(size[2])
  local path
  if math.random(2) == 1 then
    path = string.format("/api/%sattractions?page=%d&per_page=%d", lang, page, size[1])
  else
    path = string.format("/api/%sattractions/%d/%d.json", lang, size[1], page)
  end
  return wrk.format("GET", path)
end
