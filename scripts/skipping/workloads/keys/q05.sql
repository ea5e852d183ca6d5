select sum(l_extendedprice) as revenue from lineitem where l_shipdate >= date '1995-01-01' and l_shipdate < date '1995-02-01'
