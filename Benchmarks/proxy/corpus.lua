-- wrk script: walks a list of source names, and gives every request an id no request had
-- before, so the proxy cannot answer from a cache that the id is part of.
--
--   wrk -t1 -c4 -d20s -s corpus.lua http://127.0.0.1:18081 -- '<template>' <names file> <run id>
--
-- <template> is a request path in which {name} becomes the next name from <names file>
-- (one a line) and {id} a string unique to this run, thread and request, e.g.
--   /insecure/rs:fit:300:300/cb:{id}/plain/http://127.0.0.1:18080/photos/{name}
-- (a new cachebuster: a cold variant of a source already in the proxy's cache), or
--   /insecure/rs:fit:300:300/plain/http://localhost:18080/photos/{name}%3Fv%3D{id}
-- (a new source URL: download, store, decode, resize, encode; %3F is an escaped '?').
-- Without {id} every name is asked for again and again (a warm pass, or cached variants).
-- Thread t starts at name t, so threads do not walk in step.
-- After wrk's summary, a line "status <code> <count>" for each status answered, summed over
-- the threads.

local threads = {}

function setup(thread)
   threads[#threads + 1] = thread
   thread:set("thread_id", #threads)
end

function init(args)
   template = args[1] or error("give the path template after --")
   local file = assert(io.open(args[2] or error("give the names file after the template"), "r"))
   names = {}
   for line in file:lines() do
      if line ~= "" then names[#names + 1] = line end
   end
   file:close()
   assert(#names > 0, "the names file is empty")
   prefix = (args[3] or tostring(os.time())) .. "t" .. thread_id
   counter = 0
   offset = thread_id - 1
   statuses = {}
end

function response(status, headers, body)
   statuses[status] = (statuses[status] or 0) + 1
end

function request()
   local name = names[(offset + counter) % #names + 1]
   counter = counter + 1
   local path = template:gsub("{name}", name):gsub("{id}", prefix .. "-" .. counter)
   return wrk.format("GET", path)
end

function done(summary, latency, requests)
   local counts, codes = {}, {}
   for _, thread in ipairs(threads) do
      for status, count in pairs(thread:get("statuses") or {}) do
         if not counts[status] then codes[#codes + 1] = status end
         counts[status] = (counts[status] or 0) + count
      end
   end
   table.sort(codes)
   for _, status in ipairs(codes) do
      io.write(string.format("status %d %d\n", status, counts[status]))
   end
end
