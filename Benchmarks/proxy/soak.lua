-- wrk script of soak.sh: a mixed load on one proxy. Each request is, at random:
--   50 %  a hit: one of 3 fixed variants of a photo (memory cache after the first)
--   20 %  a cold variant of a photo (cb:<unique id>): decode, resize, encode, from the disk cache
--   10 %  a bad source, half of them new each time: a text file, a truncated JPEG
--   10 %  a 404: a path the origin does not have, new each time
--   10 %  a cold variant in WebP through negotiation (Accept: image/webp)
-- Status counts per class (2xx, 4xx, 5xx, other) are printed at the end.
--
--   wrk -t2 -c8 -d600s -s soak.lua http://127.0.0.1:18381 -- <origin base URL> <names file> <run id>

local threads = {}

function setup(thread)
   table.insert(threads, thread)
   thread:set("thread_id", #threads)
end

function init(args)
   origin = args[1] or error("give the origin base URL after --")
   local file = assert(io.open(args[2] or error("give the names file"), "r"))
   names = {}
   for line in file:lines() do
      if line ~= "" then names[#names + 1] = line end
   end
   file:close()
   prefix = (args[3] or tostring(os.time())) .. "t" .. thread_id
   math.randomseed(os.time() * 100 + thread_id)
   counter = 0
   s2, s4, s5, other = 0, 0, 0, 0
end

local sizes = { "rs:fit:150:150", "rs:fill:300:200", "rs:fit:600:600" }

function request()
   counter = counter + 1
   local id = prefix .. "-" .. counter
   local name = names[math.random(#names)]
   local r = math.random(100)
   local path
   local headers = {}
   if r <= 50 then
      path = "/insecure/" .. sizes[math.random(#sizes)] .. "/plain/" .. origin .. "/photos/" .. name
   elseif r <= 70 then
      path = "/insecure/rs:fit:320:320/cb:" .. id .. "/plain/" .. origin .. "/photos/" .. name
   elseif r <= 80 then
      local bad = (math.random(2) == 1) and "bad/text.jpg" or "bad/truncated.jpg"
      local query = (math.random(2) == 1) and ("%3Fv%3D" .. id) or ""
      path = "/insecure/rs:fit:200:200/plain/" .. origin .. "/" .. bad .. query
   elseif r <= 90 then
      path = "/insecure/rs:fit:200:200/plain/" .. origin .. "/missing/" .. id .. ".jpg"
   else
      path = "/insecure/rs:fit:280:280/cb:" .. id .. "/plain/" .. origin .. "/photos/" .. name
      headers["Accept"] = "image/webp,*/*"
   end
   return wrk.format("GET", path, headers)
end

function response(status, headers, body)
   if status < 300 then s2 = s2 + 1
   elseif status >= 400 and status < 500 then s4 = s4 + 1
   elseif status >= 500 then s5 = s5 + 1
   else other = other + 1 end
end

function done(summary, latency, requests)
   local t2, t4, t5, to = 0, 0, 0, 0
   for _, thread in ipairs(threads) do
      t2 = t2 + thread:get("s2"); t4 = t4 + thread:get("s4")
      t5 = t5 + thread:get("s5"); to = to + thread:get("other")
   end
   io.write(string.format("statuses: 2xx=%d 4xx=%d 5xx=%d other=%d\n", t2, t4, t5, to))
end
