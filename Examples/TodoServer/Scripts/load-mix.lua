-- wrk script for Scripts/load.sh: a mix of reads and writes (four reads of an item for each item created), and
-- each thread stops once it has had its share of the requests (`-- REQUESTS_PER_THREAD`).
local answered = 0
local limit = 0
local sent = 0

function init(args)
    limit = tonumber(args[1])
end

function request()
    sent = sent + 1
    if sent % 5 == 0 then
        return wrk.format("POST", "/todos", { ["Content-Type"] = "application/json" }, '{"title":"load"}')
    end
    return wrk.format("GET", "/todos/1")
end

function response(status, headers, body)
    answered = answered + 1
    if answered >= limit then
        wrk.thread:stop()
    end
end
