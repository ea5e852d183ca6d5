select count(*) as n from orders where o_custkey between 1000 and 1100 and o_orderdate < date '1993-01-01'
