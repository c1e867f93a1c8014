-- wrk script: every request asks for a path nobody asked for before, so the proxy
-- cannot answer from its variant cache.
--
--   wrk -t1 -c4 -d20s --latency -s distinct.lua http://127.0.0.1:18081 -- '<template>' <run id>
--
-- <template> is a request path with two %s: the first gets a string unique to this wrk
-- run and thread, the second a counter, e.g.
--   /insecure/rs:fit:300:300/cb:%s-%s/plain/http://127.0.0.1:18080/photo-24mp.jpg
-- (a new cachebuster: a cold variant of a source already in the proxy's disk cache), or
--   /insecure/rs:fit:300:300/plain/http://127.0.0.1:18080/photo-24mp.jpg%%3Fv%%3D%s-%s
-- (a new source URL: download, store, decode, resize, encode; %3F is an escaped '?').
-- The run id keeps a second run against the same cache directory cold too.

local threads = 0

function setup(thread)
   threads = threads + 1
   thread:set("thread_id", threads)
end

function init(args)
   template = args[1] or error("give the path template after --")
   prefix = (args[2] or tostring(os.time())) .. "t" .. thread_id
   counter = 0
end

function request()
   counter = counter + 1
   return wrk.format("GET", string.format(template, prefix, counter))
end
